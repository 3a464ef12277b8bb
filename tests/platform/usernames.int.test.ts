import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { uniquePhone } from '../harness/phone.ts';
import { holdTable, together } from '../harness/barrier.ts';
import { waitFor } from '../harness/process.ts';

/** Usernames are unique across tenants (login is by account alone), even under concurrent creates. */
describe('username claims', () => {
  let t: TestPlatform;
  let tokenA: string;
  let tokenB: string;
  const roles: Record<string, string> = {};
  beforeAll(async () => {
    t = await startTestPlatform();
    await t.seedTenant({ id: 'ta', name: 'tenantA', adminUsername: 'adminA', adminPassword: 'secretA1' });
    await t.seedTenant({ id: 'tb', name: 'tenantB', adminUsername: 'adminB', adminPassword: 'secretB1' });
    await t.platform.runner.catchUp();
    tokenA = await t.login('adminA', 'secretA1');
    tokenB = await t.login('adminB', 'secretB1');
    for (const token of [tokenA, tokenB]) roles[token] = (await t.api('role.list', { token })).body.data.rows[0].id;
  });
  afterAll(async () => t?.stop());

  const user = (username: string, email: string, token = tokenA) => ({
    username,
    sex: 'male',
    email,
    phone: uniquePhone(),
    status: 'enabled',
    roleIds: [roles[token]!],
    password: 'secret12',
  });

  it('refuses a username to a tenant that asks while another tenant, holding it, is being appended, and keeps projecting', async () => {
    // Given tenant A's user, its username claimed, held in its append (nothing of it committed yet),
    const gate = await holdTable(t.db.pool, 'es_events');
    const a = t.api('user.create', { token: tokenA, body: user('contested', 'a@x.test') });
    await waitFor(
      'the username claimed',
      async () => (await t.db.pool.query(`select 1 from username_claims where username = 'contested'`)).rowCount === 1,
    );
    await gate.queued(1);
    // when tenant B asks for the same username, it is refused at once,
    const b = await t.api('user.create', { token: tokenB, body: user('Contested', 'b@x.test', tokenB) });
    expect(b.status).toBe(400);
    expect(b.body.data.error).toBe('USERNAME_TAKEN');
    // and A's user is created once its append goes through.
    await gate.release();
    expect((await a).status).toBe(200);

    // The read model goes on: a later user shows up, and only one 'contested' exists.
    const later = await t.api('user.create', { token: tokenA, body: user('laterUser', 'later@x.test') });
    expect(later.status).toBe(200);
    await t.platform.runner.catchUp();
    const rows = await t.db.pool.query(`select id from rm_users where lower(username) in ('contested', 'lateruser')`);
    expect(rows.rowCount).toBe(2);
  });

  it('lets exactly one of two tenants have a username when both have passed every check and claim it at the same moment', async () => {
    // Two tenants' users of one username, both held at the claim itself, claim together: one has it.
    const [a, b] = await together(holdTable(t.db.pool, 'username_claims'), [
      () => t.api('user.create', { token: tokenA, body: user('tied', 'tie-a@x.test') }),
      () => t.api('user.create', { token: tokenB, body: user('TIED', 'tie-b@x.test', tokenB) }),
    ]);
    expect([a.status, b.status].sort(), JSON.stringify([a.body, b.body])).toEqual([200, 400]);
    expect([a, b].find((r) => r.status === 400)!.body.data.error).toBe('USERNAME_TAKEN');
    await t.platform.runner.catchUp();
    expect((await t.db.pool.query(`select id from rm_users where lower(username) = 'tied'`)).rowCount).toBe(1);
  });

  it('frees a deleted user’s name and follows a rename', async () => {
    const created = await t.api('user.create', { token: tokenA, body: user('renameMe', 'r@x.test') });
    const id = created.body.data.id as string;
    const check = async (name: string) => (await t.api('user.check', { query: { username: name }, token: tokenB })).body.data.available;
    expect(await check('renameMe')).toBe(false);
    const { password: _p, ...fields } = user('renamed', 'r@x.test');
    expect((await t.api('user.update', { token: tokenA, body: { id, ...fields } })).status).toBe(200);
    expect(await check('renameMe')).toBe(true);
    expect(await check('renamed')).toBe(false);
    expect((await t.api('user.delete', { query: { id }, token: tokenA })).status).toBe(200);
    expect(await check('renamed')).toBe(true);
  });

  it('refuses a tenant registration whose name a user already has', async () => {
    await t.api('tenant.sendCode', { body: { method: 'email', target: 'reg@x.test' } });
    const code = /(\d{6})/.exec(
      (await t.db.pool.query<{ body: string }>(`select body from notify_outbox where recipient = 'reg@x.test' order by id desc limit 1`))
        .rows[0]!.body,
    )![1]!;
    const response = await t.api('tenant.register', {
      body: { tenantName: 'adminA', contactName: 'X', company: '', method: 'email', email: 'reg@x.test', code, password: 'secret12' },
    });
    expect(response.body.data.error).toBe('TENANT_NAME_TAKEN');
  });
});
