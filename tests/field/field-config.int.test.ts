import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, refusal } from '../harness/api.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * Field configuration through the routes on the embedded engines (issue 20): custom fields defined per tenant, a
 * site's parameters saved and checked against them, the site picker's tree and the site's devices.
 */
let sut: TestPlatform;
let token: string;
let regionId: string;
let siteId: string;
let roomId: string;

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'fieldco', name: 'fieldCo', adminUsername: 'fieldAdmin', adminPassword: 'Field#pw1' });
  token = await sut.login('fieldAdmin', 'Field#pw1');
  regionId = ok(await sut.call('group.create', { token, body: { name: 'East region', type: 'institution' } })).id;
  siteId = ok(await sut.call('group.create', { token, body: { name: 'Solar farm 1', type: 'powerStation', parentId: regionId } })).id;
  roomId = ok(await sut.call('group.create', { token, body: { name: 'Inverter room', type: 'powerRoom', parentId: siteId } })).id;
  const productId = ok(await sut.call('product.create', { token, body: { name: 'Inverter', code: 'FCI', type: 'direct' } })).id;
  ok(await sut.call('device.create', { token, body: { sn: 'FCI-1', name: 'Inverter 1', productId, groupId: roomId } }));
  ok(await sut.call('device.create', { token, body: { sn: 'FCI-2', name: 'Inverter 2', productId, groupId: regionId } }));
}, 120_000);
afterAll(async () => sut?.stop());

describe('field configuration', () => {
  it('defines custom fields in order, redefines and removes one', async () => {
    const inverters = { key: 'inverters', labelZh: '逆变器数量', labelEn: 'Inverters', type: 'number', required: true };
    ok(await sut.call('fieldConfig.define', { token, body: inverters }));
    ok(await sut.call('fieldConfig.define', { token, body: { key: 'gridDate', labelZh: '并网日期', labelEn: 'Grid date', type: 'date' } }));
    ok(await sut.call('fieldConfig.define', { token, body: { key: 'note', labelZh: '备注', labelEn: 'Note', type: 'text' } }));
    ok(await sut.call('fieldConfig.removeField', { token, query: { key: 'note' } }));
    expect(refusal(await sut.call('fieldConfig.removeField', { token, query: { key: 'note' } }))).toBe('NOT_FOUND');
    ok(await sut.call('fieldConfig.define', { token, body: { ...inverters, labelEn: 'Inverter count' } }));
    expect(ok(await sut.call('fieldConfig.fields', { token }))).toEqual([
      { ...inverters, labelEn: 'Inverter count' },
      { key: 'gridDate', labelZh: '并网日期', labelEn: 'Grid date', type: 'date', required: false },
    ]);
    expect(refusal(await sut.call('fieldConfig.define', { token, body: { ...inverters, key: '1bad' } }))).toBeTruthy();
  });

  it("saves a site's parameters checked against the definitions, and reads them back", async () => {
    const params = {
      groupId: siteId,
      commissioningDate: '2023-06-30',
      ratedCapacityKw: 5000,
      address: '8 Sunny Road, Hefei',
      contacts: [{ name: 'Wang Fang', phone: '+86 139 0000 1111', role: 'Site manager' }],
      custom: { inverters: 12, gridDate: '2023-07-15' },
    };
    expect(refusal(await sut.call('fieldConfig.save', { token, body: { ...params, custom: { gridDate: '2023-07-15' } } }))).toBe(
      'FIELD_REQUIRED',
    );
    expect(refusal(await sut.call('fieldConfig.save', { token, body: { ...params, custom: { inverters: 'twelve' } } }))).toBe('FIELD_TYPE');
    expect(refusal(await sut.call('fieldConfig.save', { token, body: { ...params, custom: { inverters: 1, colour: 'red' } } }))).toBe(
      'FIELD_UNKNOWN',
    );
    expect(refusal(await sut.call('fieldConfig.save', { token, body: { ...params, commissioningDate: '2023-02-30' } }))).toBeTruthy();
    expect(refusal(await sut.call('fieldConfig.save', { token, body: { ...params, groupId: roomId } }))).toBe('NOT_A_SITE');
    expect(refusal(await sut.call('fieldConfig.save', { token, body: { ...params, groupId: 'nope' } }))).toBe('NOT_FOUND');

    expect(ok(await sut.call('fieldConfig.site', { token, query: { groupId: siteId } }))).toMatchObject({
      name: 'Solar farm 1',
      commissioningDate: null,
      contacts: [],
      updateTime: null,
    });
    ok(await sut.call('fieldConfig.save', { token, body: params }));
    const { groupId: _g, ...saved } = params;
    const read = ok(await sut.call('fieldConfig.site', { token, query: { groupId: siteId } }));
    expect(read).toMatchObject({ ...saved, name: 'Solar farm 1', type: 'powerStation' });
    expect(read.updateTime).not.toBeNull();
  });

  it("lists the tree with its sites marked, and a site's devices over its subtree", async () => {
    const nodes = ok(await sut.call('fieldConfig.sites', { token }));
    const byId = new Map(nodes.map((n) => [n.id, n]));
    expect(byId.get(siteId)).toMatchObject({ isSite: true, configured: true, parentId: regionId });
    expect(byId.get(regionId)).toMatchObject({ isSite: false, configured: false });
    expect(byId.get(roomId)).toMatchObject({ isSite: false });
    const devices = ok(await sut.call('fieldConfig.devices', { token, query: { groupId: siteId } }));
    expect(devices.map((d) => d.sn)).toEqual(['FCI-1']);
    expect(refusal(await sut.call('fieldConfig.devices', { token, query: { groupId: regionId } }))).toBe('NOT_A_SITE');
  });

  it("keeps tenants apart: another tenant's admin sees neither the fields nor the site", async () => {
    await sut.seedTenant({ id: 'otherfield', name: 'otherFieldCo', adminUsername: 'otherField', adminPassword: 'Other#pw1' });
    const other = await sut.login('otherField', 'Other#pw1');
    expect(ok(await sut.call('fieldConfig.fields', { token: other }))).toEqual([]);
    expect(refusal(await sut.call('fieldConfig.site', { token: other, query: { groupId: siteId } }))).toBe('NOT_FOUND');
    expect(refusal(await sut.call('fieldConfig.save', { token: other, body: { groupId: siteId } }))).toBe('NOT_FOUND');
  });
});
