import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event } from '../fixtures/events.ts';
import { ok, type QueryOf } from '../harness/api.ts';
import { seedDevices, seedGroup, seedProduct } from '../harness/fleet.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/** The grouping screen's counts (issue 22): devices per group they are in directly, and how many are online. */
let sut: TestPlatform;
let admin: string;
let other: string;

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'oscar', name: 'oscarCo', adminUsername: 'oscarAdmin', adminPassword: 'Oscar#pw1' });
  await sut.seedTenant({ id: 'papa', name: 'papaCo', adminUsername: 'papaAdmin', adminPassword: 'Papa#pw1' });
  admin = await sut.login('oscarAdmin', 'Oscar#pw1');
  other = await sut.login('papaAdmin', 'Papa#pw1');
}, 120_000);
afterAll(async () => sut?.stop());

describe('devices counted per group', () => {
  it("counts the caller's devices per group (none for another tenant), narrowed to the current group's subtree", async () => {
    const pid = await seedProduct(sut, admin, 'M', {
      functions: [{ type: 'property', name: 't', identifier: 't', dataType: { type: 'float' } }],
    });
    const east = await seedGroup(sut, admin, 'East', null, 'powerStation');
    const site = await seedGroup(sut, admin, 'East site', east, 'powerStation');
    const west = await seedGroup(sut, admin, 'West', null, 'powerStation');
    await seedDevices(sut, admin, pid, [
      ['C-1', east],
      ['C-2', site],
      ['C-3', site],
      ['C-4', west],
      ['C-5', null],
    ]);
    // One of the site's devices reports online: its presence event, which the projection counts.
    const online = (await sut.db.pool.query<{ id: string }>(`select id from rm_devices where sn = 'C-2'`)).rows[0]!.id;
    const { store, awaitProjections } = sut.platform.context;
    await store.append(
      `device-oscar.${online}`,
      [event('DeviceWentOnline', { deviceId: online, at: new Date().toISOString() }, { tenantId: 'oscar' })],
      'any',
    );
    await awaitProjections?.();
    const counts = async (token: string, query: QueryOf<'device.groupCounts'> = {}) =>
      Object.fromEntries(ok(await sut.call('device.groupCounts', { token, query })).map((c) => [c.groupId ?? 'none', [c.total, c.online]]));
    expect(await counts(admin)).toEqual({ [east]: [1, 0], [site]: [2, 1], [west]: [1, 0], none: [1, 0] });
    expect(await counts(admin, { stationId: east })).toEqual({ [east]: [1, 0], [site]: [2, 1] });
    expect(await counts(other)).toEqual({});
  });
});
