import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@iot/contracts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * `stationId` narrows a caller's data to a group subtree (ARCHITECTURE.md "API"): a device outside it is
 * NOT_FOUND on every read of one device, its history and commands as much as its detail.
 */
let sut: TestPlatform;
let admin: string;
let east: string;
let west: string;
let westDevice: string;

type RouteName = keyof typeof routes;
async function call(name: RouteName, token: string, input: { query?: Record<string, string>; body?: unknown }) {
  const route = routes[name];
  const r = await sut.call(route.method, route.path, { token, ...input });
  return { status: r.status, error: r.json?.data?.error as string | undefined, data: r.json?.data, body: r.body };
}
async function created(name: RouteName, body: unknown): Promise<string> {
  const r = await call(name, admin, { body });
  expect(r.status, r.body).toBe(200);
  return r.data.id as string;
}

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'oscar', name: 'oscarCo', adminUsername: 'oscarAdmin', adminPassword: 'Oscar#pw1' });
  admin = await sut.login('oscarAdmin', 'Oscar#pw1');
  east = await created('group.create', { name: 'East', type: 'office', parentId: null });
  west = await created('group.create', { name: 'West', type: 'office', parentId: null });
  const productId = await created('product.create', { name: 'Valve', code: 'VALVE', type: 'direct' });
  const fn = { type: 'property', name: 'Opening', identifier: 'opening', dataType: { type: 'int', min: 0, max: 100 }, access: 'rw' };
  expect((await call('product.defineFunction', admin, { body: { productId, function: fn } })).status).toBe(200);
  westDevice = await created('device.create', { sn: 'ST-W1', name: 'west valve', productId, groupId: west });
  await sut.platform.runner.catchUp();
}, 120_000);
afterAll(async () => sut?.stop());

const reads = [
  ['device.detail', (id: string) => ({ id })],
  ['device.timeline', (id: string) => ({ id })],
  ['device.asOf', (id: string) => ({ id, at: new Date().toISOString() })],
  ['device.commands', (id: string) => ({ id })],
  ['device.desired', (id: string) => ({ id })],
] as const;

describe('reads of one device narrowed to the current station', () => {
  it.each(reads)('%s answers for a device in the station and NOT_FOUND for one outside it', async (name, query) => {
    const inside = await call(name, admin, { query: { ...query(westDevice), stationId: west } });
    expect(inside.status, inside.body).toBe(200);
    const unscoped = await call(name, admin, { query: query(westDevice) });
    expect(unscoped.status, unscoped.body).toBe(200);
    const outside = await call(name, admin, { query: { ...query(westDevice), stationId: east } });
    expect(outside.error, outside.body).toBe('NOT_FOUND');
  });
});
