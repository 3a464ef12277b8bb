import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { perm, routes } from '@iot/contracts';
import { ok } from '../harness/api.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * System → resources and tasks (issue 19): every guarded route by module with the tenant's roles and apps that hold
 * it; every scheduled job of the tenant with its schedule and next run.
 */
let sut: TestPlatform;
let token: string;
let roleId: string;
let appId: string;

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'zulu', name: 'zuluCo', adminUsername: 'zuluAdmin', adminPassword: 'Zulu#pw1' });
  await sut.seedTenant({ id: 'yoke', name: 'yokeCo', adminUsername: 'yokeAdmin', adminPassword: 'Yoke#pw1' });
  token = await sut.login('zuluAdmin', 'Zulu#pw1');
  roleId = ok(await sut.call('role.create', { token, body: { name: 'Viewers', menuIds: ['system.user', 'system.user.list'] } })).id;
  appId = ok(
    await sut.call('app.create', { token, body: { type: 'server', name: 'Reporting', scope: [perm.userList], sharing: 'organisation' } }),
  ).id;
  // Another tenant's role with the same grant: never listed to zulu.
  const theirs = await sut.login('yokeAdmin', 'Yoke#pw1');
  ok(await sut.call('role.create', { token: theirs, body: { name: 'TheirViewers', menuIds: ['system.user', 'system.user.list'] } }));
  await sut.platform.runner.catchUp();
}, 120_000);
afterAll(async () => sut?.stop());

describe('resources', () => {
  it('lists each guarded route with its module, and the roles and apps of the tenant that hold its permission', async () => {
    const rows = ok(await sut.call('resource.list', { token }));
    const userList = rows.find((r) => r.name === 'user.list')!;
    expect(userList).toMatchObject({ module: 'user', method: 'GET', permission: perm.userList });
    expect(userList.roles.map((r) => r.name)).toContain('Viewers');
    expect(userList.roles.map((r) => r.name)).not.toContain('TheirViewers');
    expect(userList.apps).toEqual([{ id: appId, name: 'Reporting' }]);
    const roleCreate = rows.find((r) => r.name === 'role.create')!;
    expect(roleCreate.roles.map((r) => r.id)).not.toContain(roleId);
    expect(roleCreate.apps).toEqual([]);
    // Doors without a permission to grant (login, the current user) are no resources.
    expect(rows.map((r) => r.permission)).not.toContain('public');
    expect(rows.map((r) => r.permission)).not.toContain('authenticated');
  });

  it('narrows to a module and a keyword', async () => {
    const cameras = ok(await sut.call('resource.list', { token, query: { module: 'camera' } }));
    expect(new Set(cameras.map((r) => r.path))).toEqual(
      new Set([routes['camera.list'].path, routes['camera.detail'].path, routes['camera.snapshot'].path]),
    );
    const found = ok(await sut.call('resource.list', { token, query: { keyword: 'CAMERA/SNAPSHOT' } }));
    expect(found.map((r) => r.name)).toEqual(['camera.snapshot']);
  });
});

describe('tasks', () => {
  it('lists the tenant’s statistic tasks with their next run, and the forwarding retries waiting, never another tenant’s', async () => {
    const productId = ok(await sut.call('product.create', { token, body: { name: 'Meter', code: 'ZMT', type: 'direct' } })).id;
    const energy = { type: 'property', name: '电量', identifier: 'energy', dataType: { type: 'float', min: 0, max: 1e6 } };
    ok(await sut.call('product.defineFunction', { token, body: { productId, function: energy } }));
    const body = {
      name: 'Hourly energy',
      dataType: 'deviceData',
      productId,
      attribute: 'energy',
      statType: 'sum',
      cycle: '1h',
      dimension: 'device',
    };
    const { id } = ok(await sut.call('statTask.create', { token, body }));
    ok(await sut.call('statTask.status', { token, body: { id, status: 'enabled' } }));
    const waiting = `insert into forward_outbox (tenant_id, rule_id, server_id, device_id, payload, attempts, next_at, error)
                     values ($1, $2, 's1', 'd1', '{}', 2, now() + interval '1 minute', 'HTTP_STATUS_5XX')`;
    await sut.db.pool.query(waiting, ['zulu', 'ruleZ']);
    await sut.db.pool.query(waiting, ['yoke', 'ruleY']);

    const jobs = ok(await sut.call('systemTask.list', { token }));
    const stat = jobs.find((j) => j.sourceId === id)!;
    expect(stat).toMatchObject({
      kind: 'statTask',
      name: 'Hourly energy',
      schedule: '1h',
      status: 'enabled',
      canPause: true,
      canResume: false,
    });
    const next = new Date(stat.nextRun!);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(3_600_000);
    expect(next.getUTCMinutes()).toBe(0);
    expect(jobs.filter((j) => j.kind === 'forwardRetry')).toEqual([
      expect.objectContaining({ sourceId: 'ruleZ', pending: 1, status: 'pending', lastResult: 'HTTP_STATUS_5XX' }),
    ]);

    ok(await sut.call('statTask.status', { token, body: { id, status: 'stopped' } }));
    const paused = ok(await sut.call('systemTask.list', { token, query: { kind: 'statTask' } }));
    expect(paused).toEqual([expect.objectContaining({ sourceId: id, status: 'stopped', nextRun: null, canResume: true })]);
  });
});
