import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinMenus } from '@iot/contracts/menu/catalogue.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';
import { onboardTenant, startProcess, waitFor, type PlatformProcess } from '../harness/process.ts';

const listUsers = { query: { page: 1, pageSize: 5 } };
const menuOf = (permission: string) => builtinMenus.find((m) => m.permission === permission)!.id;

/**
 * Two API processes on one database: sessions and permissions are cached in each, and what changes them
 * (logout, a stop, a role's menus) reaches the other through the session table and the event log.
 */
describe('sessions and permissions across two processes', () => {
  let db: TestDatabase;
  const dirs: string[] = [];
  let a: PlatformProcess;
  let b: PlatformProcess;
  let adminToken: string;
  let operatorId: string;
  let roleId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    for (let i = 0; i < 2; i++) dirs.push(await mkdtemp(path.join(os.tmpdir(), 'dc-sessions-')));
    a = await startProcess(db, dirs[0]!);
    b = await startProcess(db, dirs[1]!, {}, ['--role', 'api']);
    await onboardTenant(a, db, 'sessionsCo', 'Tenant#pw1');
    adminToken = await waitFor('the tenant administrator', async () => {
      const r = await a.call('auth.login', { body: { account: 'sessionsCo', password: 'Tenant#pw1', agreement: true } });
      return r.status === 200 ? (r.json!.data.token as string) : null;
    });
    const role = await a.call('role.create', {
      body: { name: 'viewers', remark: null, menuIds: [menuOf('system:user:list')] },
      token: adminToken,
    });
    expect(role.status).toBe(200);
    roleId = role.json!.data.id;
    const user = await a.call('user.create', {
      token: adminToken,
      body: {
        username: 'viewer1',
        sex: 'male',
        email: 'v1@acme.test',
        phone: '13800000001',
        roleIds: [roleId],
        status: 'enabled',
        password: 'Viewer#pw1',
      },
    });
    expect(user.status).toBe(200);
    operatorId = user.json!.data.id;
  }, 180_000);

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await db?.drop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  const loginViewer = async () => {
    const r = await a.call('auth.login', { body: { account: 'viewer1', password: 'Viewer#pw1', agreement: true } });
    expect(r.status).toBe(200);
    return r.json!.data.token as string;
  };

  it('refuses a token logged out in the other process on the very next request', async () => {
    const token = await loginViewer();
    expect((await b.call('user.list', { ...listUsers, token })).status).toBe(200);
    expect((await a.call('auth.logout', { token })).status).toBe(200);
    expect((await b.call('user.list', { ...listUsers, token })).status).toBe(401);
  });

  it("drops a permission the other process took from the caller's role", async () => {
    const token = await loginViewer();
    expect((await b.call('user.list', { ...listUsers, token })).status).toBe(200);
    expect((await a.call('role.grant', { body: { id: roleId, menuIds: [menuOf('system:role:list')] }, token: adminToken })).status).toBe(
      200,
    );
    // The change reaches process B through the event log: within moments, not at the next login.
    await waitFor('process B to refuse', async () => (await b.call('user.list', { ...listUsers, token })).status === 403, 5_000);
    expect((await b.call('role.list', { query: { page: 1 }, token })).status).toBe(200);
  });

  it('refuses a user stopped in the other process on the very next request', async () => {
    const token = await loginViewer();
    expect((await b.call('auth.currentUser', { token })).status).toBe(200);
    expect((await a.call('user.status', { body: { id: operatorId, status: 'stopped' }, token: adminToken })).status).toBe(200);
    expect((await b.call('auth.currentUser', { token })).status).toBe(401);
  });
});
