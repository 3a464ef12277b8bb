import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_LIMITS } from '@iot/command/auth/throttle.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { hold, together } from '../harness/barrier.ts';

/** Issue 9 (medium): one-time codes and login attempts are counted atomically, whatever the interleaving. */
describe('races on one-time codes and login throttling', () => {
  let sut: TestPlatform;
  beforeAll(async () => {
    sut = await startTestPlatform();
    await sut.seedTenant({ id: 'race', name: 'raceCo', adminUsername: 'raceCo', adminPassword: 'Race#pw123' });
  });
  afterAll(async () => sut?.stop());

  it('lets one verification code register one tenant when submitted 4 times, each held at the code until all are', async () => {
    const email = 'race@acme.test';
    expect((await sut.api('tenant.sendCode', { body: { method: 'email', target: email } })).status).toBe(200);
    const row = await sut.db.pool.query<{ body: string }>('select body from notify_outbox where recipient = $1 order by id desc limit 1', [
      email,
    ]);
    const code = /(\d{6})/.exec(row.rows[0]!.body)![1]!;
    // The code's row is held (FOR UPDATE) until every registration waits to use it up; then they go together.
    const answers = await together(
      hold(sut.db.pool, 'select 1 from auth_verification_codes where target = $1 for update', [email]),
      Array.from(
        { length: 4 },
        (_, i) => () =>
          sut.call('tenant.register', {
            body: {
              tenantName: `raceTenant${i}`,
              contactName: 'Race',
              company: 'Acme',
              method: 'email',
              email,
              code,
              password: 'Race#pw123',
            },
          }),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.json?.data?.error === 'CODE_INVALID')).toHaveLength(3);
    const tenants = await sut.db.pool.query(`select 1 from es_events where type = 'TenantRegistered' and data->>'email' = $1`, [email]);
    expect(tenants.rowCount).toBe(1);
  });

  it('checks at most the allowed number of 50 concurrent wrong passwords for one account', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        sut.call('auth.login', {
          body: { account: 'raceCo', password: `wrong${i}`, agreement: true },
          remoteAddress: `10.9.0.${i + 1}`,
        }),
      ),
    );
    const errors = answers.map((a) => a.json?.data?.error);
    expect(errors.filter((e) => e === 'LOGIN_FAILED')).toHaveLength(5);
    expect(errors.filter((e) => e === 'RATE_LIMITED')).toHaveLength(45);
  });

  it('throttles guessing an app secret and checking a password', async () => {
    const guesses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        sut.call('app.token', { body: { appKey: 'akguessed', appSecret: `s${i}` }, remoteAddress: `10.8.0.${i + 1}` }),
      ),
    );
    expect(guesses.filter((g) => g.json?.data?.error === 'RATE_LIMITED').length).toBe(7);
    await sut.seedTenant({ id: 'race2', name: 'raceTwo', adminUsername: 'raceTwo', adminPassword: 'Race#pw123' });
    const token = await sut.login('raceTwo', 'Race#pw123', '10.7.0.1');
    const checks = [];
    for (let i = 0; i < 7; i++) checks.push((await sut.call('user.checkPassword', { token, body: { password: `no${i}` } })).status);
    expect(checks.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(checks.slice(5)).toEqual([429, 429]);
  });

  it('sends at most 10 codes a day to one address, whatever the clients', async () => {
    const target = 'codes@acme.test';
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      // Past the 60 s countdown each time, from a new client each time.
      await sut.db.pool.query(`update auth_verification_codes set sent_at = now() - interval '2 minutes' where target = $1`, [target]);
      statuses.push((await sut.call('tenant.sendCode', { body: { method: 'email', target }, remoteAddress: `10.6.0.${i + 1}` })).status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
    const sent = await sut.db.pool.query('select 1 from notify_outbox where recipient = $1', [target]);
    expect(sent.rowCount).toBe(10);
  });

  it('sends at most the hourly number of codes to one client, whatever the addresses', async () => {
    const client = '10.7.0.1';
    const statuses: number[] = [];
    for (let i = 0; i < CODE_LIMITS.perClientPerHour + 2; i++)
      statuses.push(
        (await sut.call('tenant.sendCode', { body: { method: 'email', target: `c${i}@acme.test` }, remoteAddress: client })).status,
      );
    expect(statuses.filter((s) => s === 200)).toHaveLength(CODE_LIMITS.perClientPerHour);
    expect(statuses.slice(-2)).toEqual([429, 429]);
  });

  it('tells whether a tenant name is taken only to someone who proved the code', async () => {
    const target = 'prober@acme.test';
    await sut.call('tenant.sendCode', { body: { method: 'email', target }, remoteAddress: '10.8.0.1' });
    const code = /\b(\d{6})\b/.exec(
      (await sut.db.pool.query<{ body: string }>('select body from notify_outbox where recipient = $1 order by id desc limit 1', [target]))
        .rows[0]!.body,
    )![1]!;
    const register = (withCode: string) =>
      sut.call('tenant.register', {
        // 'raceCo' is a tenant (and its administrator's username) already.
        body: { tenantName: 'raceCo', contactName: 'X', company: '', method: 'email', email: target, code: withCode, password: 'secret12' },
        remoteAddress: '10.8.0.1',
      });
    expect((await register(code === '000000' ? '111111' : '000000')).json!.data.error).toBe('CODE_INVALID');
    expect((await register(code)).json!.data.error).toBe('TENANT_NAME_TAKEN');
  });
});
