import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/** A client that retries a request with the same Idempotency-Key gets the first answer, and it applies once. */
describe('idempotent requests over HTTP', () => {
  let t: TestPlatform;
  let token: string;
  let roleId: string;
  beforeAll(async () => {
    t = await startTestPlatform();
    await t.seedTenant({ id: 'idem', name: 'idemTenant', adminUsername: 'idemAdmin', adminPassword: 'secret12' });
    await t.platform.runner.catchUp();
    token = await t.login('idemAdmin', 'secret12');
    roleId = (await t.api('role.list', { token })).body.data.rows[0].id;
  });
  afterAll(async () => t?.stop());

  it('creates a user once when the same request is sent three times', async () => {
    const body = {
      username: 'retried',
      sex: 'female',
      email: 'r@x.test',
      phone: '13900000003',
      status: 'enabled',
      roleIds: [roleId],
      password: 'secret12',
    };
    const headers = { 'idempotency-key': 'create-retried-1' };
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await t.api('user.create', { token, body, headers }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.data.id)).size).toBe(1);
    const events = await t.db.pool.query(`select 1 from es_events where type = 'UserCreated' and data->>'username' = 'retried'`);
    expect(events.rowCount).toBe(1);

    // A new key is a new request: the name is taken now.
    const again = await t.api('user.create', { token, body, headers: { 'idempotency-key': 'create-retried-2' } });
    expect(again.body.data.error).toBe('USERNAME_TAKEN');
  });
});
