import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  mqttConfigFields,
  templateFields,
  type DeviceEvent,
  type GroupEvent,
  type MqttConfigEvent,
  type ProductEvent,
  type ProductFields,
  type TemplateEvent,
  type TenantEvent,
  type ThingFunction,
  type UserEvent,
} from '@iot/contracts';
import { readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { groupsProjection } from '../group/groups.ts';
import { tenantsProjection } from '../tenant/tenants.ts';
import { usersProjection } from '../user/users.ts';
import { devicesProjection } from './devices.ts';
import { productsProjection } from './products.ts';
import { mqttConfigsProjection, templatesProjection } from './templates.ts';
import {
  anyDeviceInGroup,
  deviceById,
  deviceCounts,
  deviceCountsByGroup,
  deviceEntryBySecretHash,
  deviceEntryBySn,
  deviceGroupOf,
  deviceIdsOfProduct,
  deviceIsOfProduct,
  devicePage,
  devicesOfTenant,
  gatewayHasDevices,
  nodeTypeOf,
  onlineDeviceEntries,
  productHasDevices,
  reachabilityOf,
  silentOnlineEntries,
  subDeviceEntries,
  subDeviceEntry,
  thingModelOf,
} from './read.ts';
import { productById, productPage, productVersions, publishedModel } from './product-read.ts';
import { mqttConfigPage, templatePage } from './template-read.ts';

let sut: ReadModel;
const page = (over: Partial<{ page: number; pageSize: number; sort: string; order: 'asc' | 'desc' }> = {}) => ({
  page: 1,
  pageSize: 20,
  order: 'asc' as const,
  ...over,
});

const property = (identifier: string): ThingFunction => ({
  type: 'property',
  name: identifier,
  identifier,
  dataType: { type: 'float' },
  access: 'rw',
});
const productFields = (name: string, code: string, type: ProductFields['type']): ProductFields => ({
  name,
  code,
  type,
  category: null,
  version: null,
  company: null,
  model: null,
  manufacturer: null,
  protocol: 'mqtt',
  description: null,
});

async function product(tenantId: string, productId: string, fields: ProductFields, functions: ThingFunction[], at: string) {
  const event: ProductEvent = { type: 'ProductCreated', data: { productId, key: `key-${productId}`, fields, functions, copiedFrom: null } };
  await sut.given(productsProjection, event, { tenantId, at, actor: { kind: 'user', id: 'u-ann' } });
}
async function productEvent(tenantId: string, event: ProductEvent) {
  await sut.given(productsProjection, event, { tenantId, actor: { kind: 'user', id: 'u-bob' } });
}

type Created = Extract<DeviceEvent, { type: 'DeviceCreated' }>['data'];
async function device(tenantId: string, over: Partial<Created> & Pick<Created, 'deviceId' | 'sn' | 'name' | 'productId'>, at: string) {
  const event: DeviceEvent = {
    type: 'DeviceCreated',
    data: {
      modelVersion: 0,
      nodeType: 'direct',
      groupId: null,
      gatewayId: null,
      location: { lng: 121.5, lat: 31.2, address: 'Shanghai' },
      version: null,
      tags: [],
      remark: null,
      secretHash: `hash-${over.deviceId}`,
      ...over,
    },
  };
  await sut.given(devicesProjection, event, { tenantId, at, actor: { kind: 'user', id: 'u-ann' } });
}
const deviceEvent = (tenantId: string, event: DeviceEvent) => sut.given(devicesProjection, event, { tenantId });

// t1: products meter (published v1, draft changed since) and hub (a gateway); groups root > east;
//     devices m1 (east, online, tagged), m2 (root, disabled), hub1 (gateway, m1 behind it)
// t2: a device of its own
beforeAll(async () => {
  sut = await readModelOf(
    devicesProjection,
    productsProjection,
    templatesProjection,
    mqttConfigsProjection,
    groupsProjection,
    usersProjection,
    tenantsProjection,
  );
  await sut.db.query(
    'create table device_reports (device_id text primary key, tenant_id text not null, last_report_at timestamptz not null, seen_at timestamptz)',
  );
  const user: UserEvent = {
    type: 'UserCreated',
    data: {
      userId: 'u-ann',
      username: 'ann',
      email: null,
      phone: null,
      sex: 'female',
      position: null,
      groupId: null,
      roleIds: [],
      description: null,
      homePage: null,
      isSystemAdmin: false,
      isTenantAdmin: true,
    },
  };
  await sut.given(usersProjection, user, { tenantId: 't1' });
  const registered: TenantEvent = {
    type: 'TenantRegistered',
    data: { tenantId: 't1', name: 't1', contactName: 'c', company: 'c', method: 'email', phone: null, email: null },
  };
  await sut.given(tenantsProjection, registered, { tenantId: 't1' });
  await sut.given(tenantsProjection, { type: 'TenantApproved', data: { tenantId: 't1', adminUserId: 'u-ann' } } satisfies TenantEvent, {
    tenantId: 't1',
  });
  for (const [groupId, name, parentId] of [
    ['root', 'Root', null],
    ['east', 'East', 'root'],
  ] as const) {
    const event: GroupEvent = { type: 'GroupCreated', data: { groupId, name, type: 'office', location: null, sort: 0, parentId } };
    await sut.given(groupsProjection, event, { tenantId: 't1' });
  }

  await product('t1', 'meter', productFields('Meter', 'METER', 'direct'), [property('temperature')], '2026-01-01T00:00:00Z');
  await productEvent('t1', { type: 'ProductPublished', data: { productId: 'meter', version: 1, functions: [property('temperature')] } });
  await productEvent('t1', { type: 'ProductFunctionDefined', data: { productId: 'meter', function: property('humidity') } });
  await product('t1', 'hub', productFields('Hub', 'HUB', 'gateway'), [], '2026-01-02T00:00:00Z');
  await product('t2', 'theirs', productFields('Theirs', 'THEIRS', 'direct'), [property('x')], '2026-01-03T00:00:00Z');

  await device(
    't1',
    { deviceId: 'hub1', sn: 'HUB-1', name: 'Hub one', productId: 'hub', nodeType: 'gateway', groupId: 'root' },
    '2026-02-01T00:00:00Z',
  );
  await device(
    't1',
    {
      deviceId: 'm1',
      sn: 'SN-001',
      name: 'meter A',
      productId: 'meter',
      modelVersion: 1,
      groupId: 'east',
      gatewayId: 'hub1',
      tags: ['roof'],
    },
    '2026-02-02T00:00:00Z',
  );
  await device('t1', { deviceId: 'm2', sn: 'SN-002', name: 'Meter b', productId: 'meter', groupId: 'root' }, '2026-02-03T00:00:00Z');
  await device('t2', { deviceId: 'x1', sn: 'X-1', name: 'meter X', productId: 'theirs' }, '2026-02-04T00:00:00Z');
  await deviceEvent('t1', { type: 'DeviceWentOnline', data: { deviceId: 'm1', at: '2026-02-05T00:00:00Z' } });
  await deviceEvent('t1', { type: 'DeviceDisabled', data: { deviceId: 'm2' } });
  await sut.db.query(`insert into device_reports (device_id, tenant_id, last_report_at) values ('m1', 't1', '2026-02-06T00:00:00Z')`);

  const template: TemplateEvent = {
    type: 'TemplateCreated',
    data: {
      templateId: 'tpl',
      fields: templateFields.parse({ name: 'Meters', productId: 'meter', protocol: 'mqtt', acquisitionPeriod: 10 }),
    },
  };
  await sut.given(templatesProjection, template, { tenantId: 't1' });
  await deviceEvent('t1', { type: 'DeviceTemplateApplied', data: { deviceId: 'm1', templateId: 'tpl' } });
  const config: MqttConfigEvent = {
    type: 'MqttConfigCreated',
    data: {
      configId: 'cfg',
      hasPassword: true,
      fields: mqttConfigFields.parse({
        gatewayId: 'hub1',
        name: 'Upstream',
        serviceName: 'cloud',
        ip: '10.0.0.1',
        port: 1883,
        clientId: 'hub1',
        uplinkTopic: 'up',
        downlinkTopic: 'down',
      }),
    },
  };
  await sut.given(mqttConfigsProjection, config, { tenantId: 't1' });
});
afterAll(async () => sut?.drop());

describe('the devices read module', () => {
  it('finds a device of a tenant by id with the names of what it points at, and none of another tenant', async () => {
    expect(await deviceById(sut.db, 't1', 'm1')).toMatchObject({
      sn: 'SN-001',
      productName: 'Meter',
      modelVersion: 1,
      groupName: 'East',
      gatewayName: 'Hub one',
      status: 'online',
      enabled: true,
      lng: 121.5,
      tags: ['roof'],
      templateId: 'tpl',
      subDeviceCount: 0,
      lastReportAt: new Date('2026-02-06T00:00:00Z'),
      createdBy: 'ann',
      createdAt: new Date('2026-02-02T00:00:00Z'),
    });
    expect((await deviceById(sut.db, 't1', 'hub1'))!.subDeviceCount).toBe(1);
    expect((await deviceById(sut.db, 't1', 'm2'))!.lastReportAt).toBeNull();
    expect(await deviceById(sut.db, 't1', 'x1')).toBeNull();
  });

  it('pages a tenant’s devices within a station and a group’s subtree, by each filter, sorted as asked', async () => {
    const ids = async (filter: Parameters<typeof devicePage>[2], over = {}) =>
      (await devicePage(sut.db, 't1', filter, page(over))).rows.map((d) => d.id);
    expect(await ids({}, { order: 'desc' })).toEqual(['m2', 'm1', 'hub1']);
    expect(await ids({ stationId: 'east' })).toEqual(['m1']);
    expect(await ids({ stationId: 'root', groupId: 'east' })).toEqual(['m1']);
    expect(await ids({ name: 'METER' }, { sort: 'name' })).toEqual(['m1', 'm2']);
    expect(await ids({ sn: 'sn-00' }, { sort: 'sn', order: 'desc' })).toEqual(['m2', 'm1']);
    expect(await ids({ productId: 'meter', enabled: false })).toEqual(['m2']);
    expect(await ids({ status: 'online' })).toEqual(['m1']);
    expect(await ids({ gatewayId: 'hub1' })).toEqual(['m1']);
    expect(await ids({ nodeType: 'gateway' })).toEqual(['hub1']);
    expect(await ids({ tag: 'roof' })).toEqual(['m1']);
    // An unknown sort falls back to creation time.
    expect(await ids({}, { sort: 'secret_hash' })).toEqual(['hub1', 'm1', 'm2']);
    const gateways = await devicePage(sut.db, 't1', { nodeType: 'gateway' }, page(), { subDevices: true });
    expect({ total: gateways.total, subDevices: gateways.rows[0]!.subDeviceCount }).toEqual({ total: 1, subDevices: 1 });
    expect((await devicePage(sut.db, 't1', {}, page({ pageSize: 1, page: 2 }))).total).toBe(3);
  });

  it('counts a tenant’s devices by status and by group, within a station', async () => {
    expect(await deviceCounts(sut.db, 't1', {})).toEqual({ total: 3, online: 1, offline: 2, disabled: 1 });
    expect(await deviceCounts(sut.db, 't1', { stationId: 'east' })).toEqual({ total: 1, online: 1, offline: 0, disabled: 0 });
    expect((await deviceCountsByGroup(sut.db, 't1', {})).sort((a, b) => a.groupId!.localeCompare(b.groupId!))).toEqual([
      { groupId: 'east', total: 1, online: 1 },
      { groupId: 'root', total: 2, online: 0 },
    ]);
  });

  it('answers the write side’s questions about devices, within one tenant', async () => {
    expect(await anyDeviceInGroup(sut.db, 't1', 'east')).toBe(true);
    expect(await devicesOfTenant(sut.db, 't1', ['m1', 'x1'])).toEqual(['m1']);
    expect(await deviceIsOfProduct(sut.db, 't1', 'm1', 'meter')).toBe(true);
    expect(await deviceIsOfProduct(sut.db, 't2', 'm1', 'meter')).toBe(false);
    expect(await deviceGroupOf(sut.db, 'm1')).toBe('east');
    expect([await nodeTypeOf(sut.db, 't1', 'hub1'), await nodeTypeOf(sut.db, 't1', 'm1'), await nodeTypeOf(sut.db, 't2', 'hub1')]).toEqual([
      'gateway',
      'direct',
      null,
    ]);
    expect([await gatewayHasDevices(sut.db, 't1', 'hub1'), await gatewayHasDevices(sut.db, 't1', 'm1')]).toEqual([true, false]);
    expect([await productHasDevices(sut.db, 't1', 'meter'), await productHasDevices(sut.db, 't2', 'meter')]).toEqual([true, false]);
    expect(await deviceIdsOfProduct(sut.db, 't1', 'meter', 1)).toEqual(['m1']);
  });

  it('gives the thing model a device reports against: its published version, or the draft before any', async () => {
    const identifiers = async (productId: string, version: number, tenantId = 't1') =>
      (await thingModelOf(sut.db, tenantId, productId, version)).map((f) => f.identifier);
    expect(await identifiers('meter', 1)).toEqual(['temperature']);
    expect(await identifiers('meter', 0)).toEqual(['temperature', 'humidity']);
    expect(await identifiers('meter', 2)).toEqual([]);
    expect(await identifiers('theirs', 0)).toEqual([]);
    expect(await identifiers('theirs', 0, 't2')).toEqual(['x']);
  });
});

describe('the products read module', () => {
  it('finds a product with its counts and who made and changed it, and none of another tenant', async () => {
    expect(await productById(sut.db, 't1', 'meter')).toMatchObject({
      code: 'METER',
      status: 'published',
      modelVersion: 1,
      functionCount: 2,
      draftChanged: true,
      deviceCount: 2,
      createdBy: 'ann',
      updatedBy: 'u-bob',
    });
    expect((await productById(sut.db, 't1', 'hub'))!.draftChanged).toBe(true);
    expect(await productById(sut.db, 't1', 'theirs')).toBeNull();
  });

  it('pages a tenant’s products by name or code, type and status', async () => {
    const ids = async (filter: Parameters<typeof productPage>[2], over = {}) =>
      (await productPage(sut.db, 't1', filter, page(over))).rows.map((p) => p.id);
    expect(await ids({}, { sort: 'name' })).toEqual(['hub', 'meter']);
    expect(await ids({ name: 'hu' })).toEqual(['hub']);
    expect(await ids({ name: 'METER' })).toEqual(['meter']);
    expect(await ids({ type: 'gateway' })).toEqual(['hub']);
    expect(await ids({ status: 'published' })).toEqual(['meter']);
  });

  it('lists published versions newest first, and gives a version’s functions', async () => {
    expect(await productVersions(sut.db, 'meter')).toEqual([
      { version: 1, publishedAt: expect.any(Date), publishedBy: 'u-bob', functionCount: 1 },
    ]);
    expect((await publishedModel(sut.db, 'meter', 1))!.map((f) => f.identifier)).toEqual(['temperature']);
    expect(await publishedModel(sut.db, 'meter', 2)).toBeNull();
  });
});

describe('the templates and MQTT configs read module', () => {
  it('pages a tenant’s templates with their product and devices counted', async () => {
    const templates = await templatePage(sut.db, 't1', { name: 'met', productId: 'meter' }, page({ sort: 'name' }));
    expect(templates.rows).toMatchObject([{ id: 'tpl', productName: 'Meter', deviceCount: 1, fields: { name: 'Meters', frequency: 1 } }]);
    expect((await templatePage(sut.db, 't2', {}, page())).total).toBe(0);
  });

  it('pages a tenant’s MQTT configs with their gateway, never a password', async () => {
    const configs = await mqttConfigPage(sut.db, 't1', { gatewayId: 'hub1', name: 'up' }, page());
    expect(configs.rows).toMatchObject([{ id: 'cfg', gatewayName: 'Hub one', hasPassword: true, fields: { port: 1883 } }]);
    expect(configs.rows[0]!.fields).not.toHaveProperty('password');
    expect((await mqttConfigPage(sut.db, 't1', { name: 'nothing' }, page())).total).toBe(0);
  });
});

describe('the intake’s look-ups (the device directory)', () => {
  it('finds a device by SN or by its secret’s hash with its rights, its template’s retention and its tenant’s approval', async () => {
    expect(await deviceEntryBySn(sut.db, 'SN-001')).toEqual({
      deviceId: 'm1',
      tenantId: 't1',
      sn: 'SN-001',
      name: 'meter A',
      productId: 'meter',
      modelVersion: 1,
      nodeType: 'direct',
      gatewayId: 'hub1',
      groupId: 'east',
      secretHash: 'hash-m1',
      enabled: true,
      tenantActive: true,
      retentionDays: 365,
    });
    expect(await deviceEntryBySecretHash(sut.db, 'hash-m2')).toMatchObject({ deviceId: 'm2', enabled: false, retentionDays: null });
    // A tenant never approved is not active.
    expect(await deviceEntryBySn(sut.db, 'X-1')).toMatchObject({ deviceId: 'x1', tenantActive: false });
    expect(await deviceEntryBySn(sut.db, 'nobody')).toBeNull();
  });

  it('finds the devices behind a gateway, by SN or name, never another tenant’s', async () => {
    expect((await subDeviceEntry(sut.db, 't1', 'hub1', 'SN-001'))?.deviceId).toBe('m1');
    expect((await subDeviceEntry(sut.db, 't1', 'hub1', 'meter A'))?.deviceId).toBe('m1');
    expect(await subDeviceEntry(sut.db, 't1', 'hub1', 'SN-002')).toBeNull();
    expect(await subDeviceEntry(sut.db, 't2', 'hub1', 'SN-001')).toBeNull();
    expect((await subDeviceEntries(sut.db, 't1', 'hub1')).map((d) => d.deviceId)).toEqual(['m1']);
  });

  it('tells presence: who is online, whether a device and its gateway are, who went silent', async () => {
    expect((await onlineDeviceEntries(sut.db, {})).map((d) => d.deviceId)).toEqual(['m1']);
    expect(await onlineDeviceEntries(sut.db, { tenantId: 't2' })).toEqual([]);
    expect(await onlineDeviceEntries(sut.db, { deviceId: 'm2' })).toEqual([]);
    expect(await reachabilityOf(sut.db, 'm1')).toEqual({ online: true, gatewaySn: 'HUB-1', gatewayOnline: false });
    expect(await reachabilityOf(sut.db, 'hub1')).toEqual({ online: false, gatewaySn: null, gatewayOnline: false });
    // A disabled device is not reached.
    expect(await reachabilityOf(sut.db, 'm2')).toBeNull();
    // m1 went online in February and no report was seen since: silent; seen a moment ago, it is not.
    expect((await silentOnlineEntries(sut.db, 60_000, 10)).map((d) => d.deviceId)).toEqual(['m1']);
    await sut.db.query(`update device_reports set seen_at = now() where device_id = 'm1'`);
    expect(await silentOnlineEntries(sut.db, 60_000, 10)).toEqual([]);
  });
});
