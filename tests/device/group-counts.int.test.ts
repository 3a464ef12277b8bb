import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/** The grouping screen's counts (issue 22): devices per group they are in directly, and how many are online. */
let sut: TestPlatform;
let admin: string;
let other: string;
const ok = (r: { status: number; body: string; json: { data: any } | null }) => {
  expect(r.status, r.body).toBe(200);
  return r.json!.data;
};

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
    const { id: pid } = ok(await sut.call('product.create', { token: admin, body: { name: 'Meter', code: 'M', type: 'direct' } }));
    ok(
      await sut.call('product.defineFunction', {
        token: admin,
        body: { productId: pid, function: { type: 'property', name: 't', identifier: 't', dataType: { type: 'float' } } },
      }),
    );
    ok(await sut.call('product.publish', { token: admin, body: { id: pid } }));
    const group = async (name: string, parentId: string | null = null) =>
      ok(await sut.call('group.create', { token: admin, body: { name, type: 'powerStation', parentId } })).id as string;
    const east = await group('East');
    const site = await group('East site', east);
    const west = await group('West');
    for (const [sn, groupId] of [
      ['C-1', east],
      ['C-2', site],
      ['C-3', site],
      ['C-4', west],
      ['C-5', null],
    ] as const)
      ok(await sut.call('device.create', { token: admin, body: { sn, name: sn, productId: pid, groupId } }));
    await sut.platform.runner.catchUp();
    // One of the site's devices reports online.
    await sut.db.pool.query(`update rm_devices set status = 'online' where sn = 'C-2'`);
    const counts = async (token: string, query: Record<string, string> = {}) =>
      Object.fromEntries(
        (
          ok(await sut.call('device.groupCounts', { token, query })) as {
            groupId: string | null;
            total: number;
            online: number;
          }[]
        ).map((c) => [c.groupId ?? 'none', [c.total, c.online]]),
      );
    expect(await counts(admin)).toEqual({ [east]: [1, 0], [site]: [2, 1], [west]: [1, 0], none: [1, 0] });
    expect(await counts(admin, { stationId: east })).toEqual({ [east]: [1, 0], [site]: [2, 1] });
    expect(await counts(other)).toEqual({});
  });
});
