import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, TEST_ADMIN_PASSWORD, type TestPlatform } from '../harness/platform.ts';
import { specOf } from '../harness/api.ts';

/** The verification code the notifier wrote to the outbox for this phone or email. */
async function codeSentTo(t: TestPlatform, target: string): Promise<string> {
  const row = await t.db.pool.query<{ body: string }>('select body from notify_outbox where recipient = $1 order by id desc limit 1', [
    target,
  ]);
  const code = /(\d{6})/.exec(row.rows[0]?.body ?? '')?.[1];
  if (!code) throw new Error(`no code was sent to ${target}`);
  return code;
}

describe('tenant registration and audit through HTTP', () => {
  let t: TestPlatform;
  let adminToken: string;

  beforeAll(async () => {
    t = await startTestPlatform();
    adminToken = await t.login('admin', TEST_ADMIN_PASSWORD);
  });
  afterAll(async () => t?.stop());

  async function register(name: string, email: string, password = 'secret12') {
    expect((await t.api('tenant.sendCode', { body: { method: 'email', target: email } })).status).toBe(200);
    const code = await codeSentTo(t, email);
    return t.api('tenant.register', {
      body: { tenantName: name, contactName: 'Li Lei', company: 'Acme', method: 'email', email, code, password },
    });
  }

  it('registers by email, is approved by the system administrator, and its admin logs in', async () => {
    const registered = await register('Acme Water', 'ops@acme.test');
    expect(registered.status).toBe(200);
    expect(registered.body.data.status).toBe('underReview');
    const id = registered.body.data.id as string;

    await t.platform.runner.catchUp();
    const pending = await t.api('tenant.list', { query: { status: 'underReview' }, token: adminToken });
    expect(pending.body.data.rows.map((r: { id: string }) => r.id)).toContain(id);

    // Before approval the registration password opens nothing: the applicant is told the registration is under review.
    const early = await t.api('auth.login', { body: { account: 'Acme Water', password: 'secret12', agreement: true } });
    expect(early.status).toBe(403);
    expect(early.body.data).toEqual({ error: 'REGISTRATION_UNDER_REVIEW' });

    const approved = await t.api('tenant.approve', { token: adminToken, body: { id } });
    expect(approved.status).toBe(200);
    await t.platform.runner.catchUp();

    const list = await t.api('tenant.list', { query: { name: 'Acme' }, token: adminToken });
    const row = list.body.data.rows.find((r: { id: string }) => r.id === id);
    expect(row).toMatchObject({ status: 'approved', registerMethod: 'email', email: 'ops@acme.test' });
    expect(row.auditTime).not.toBeNull();

    const tenantToken = await t.login('ops@acme.test', 'secret12');
    const me = await t.api('auth.currentUser', { token: tenantToken });
    expect(me.body.data).toMatchObject({ tenantId: id, username: 'Acme Water', isSystemAdmin: false });

    const result = await t.db.pool.query<{ subject: string; channel: string }>(
      `select subject, channel from notify_outbox where recipient = 'ops@acme.test' order by id desc limit 1`,
    );
    expect(result.rows[0]).toMatchObject({ channel: 'email', subject: expect.stringContaining('approved') });
  });

  it('registers by phone and is rejected with a reason delivered by SMS', async () => {
    const phone = '13800138000';
    expect((await t.api('tenant.sendCode', { body: { method: 'phone', target: phone } })).status).toBe(200);
    const code = await codeSentTo(t, phone);
    const registered = await t.api('tenant.register', {
      body: { tenantName: 'Beta Power', contactName: 'Han', company: 'Beta', method: 'phone', phone, code, password: 'secret12' },
    });
    expect(registered.status).toBe(200);
    const id = registered.body.data.id as string;
    // The applicant hears "under review", not "wrong password"; a wrong password still hears nothing more.
    const loginAt = async (password: string) =>
      (await t.api('auth.login', { body: { account: 'Beta Power', password, agreement: true }, headers: { lang: 'en' } })).body;
    expect(await loginAt('secret12')).toMatchObject({ code: 403, data: { error: 'REGISTRATION_UNDER_REVIEW' } });
    expect((await loginAt('secret13')).data.error).toBe('LOGIN_FAILED');

    const rejected = await t.api('tenant.reject', {
      token: adminToken,
      body: { id, reason: 'incomplete papers' },
    });
    expect(rejected.status).toBe(200);
    const again = await t.api('tenant.approve', { token: adminToken, body: { id } });
    expect(again.status).toBe(400);
    expect(again.body.data.error).toBe('REGISTRATION_NOT_PENDING');
    await t.platform.runner.catchUp();
    expect(await loginAt('secret12')).toMatchObject({
      code: 403,
      msg: 'Your registration was not approved',
      data: { error: 'REGISTRATION_REJECTED' },
    });

    await t.platform.runner.catchUp();
    const list = await t.api('tenant.list', { query: { status: 'rejected' }, token: adminToken });
    expect(list.body.data.rows.find((r: { id: string }) => r.id === id)).toMatchObject({ rejectReason: 'incomplete papers' });
    const sms = await t.db.pool.query<{ body: string; channel: string }>(
      `select body, channel from notify_outbox where recipient = $1 order by id desc limit 1`,
      [phone],
    );
    expect(sms.rows[0]).toMatchObject({ channel: 'sms', body: expect.stringContaining('incomplete papers') });
  });

  it('claims a registration’s phone platform-wide: another spelling is refused while pending, the approved administrator keeps it, a rejection frees it', async () => {
    const registerByPhone = async (name: string, phone: string) => {
      expect((await t.api('tenant.sendCode', { body: { method: 'phone', target: phone } })).status).toBe(200);
      const code = await codeSentTo(t, phone);
      return t.api('tenant.register', {
        headers: { lang: 'en' },
        body: { tenantName: name, contactName: 'Zhao', company: '', method: 'phone', phone, code, password: 'secret12' },
      });
    };
    const held = await registerByPhone('Gamma Grid', '13911112222');
    expect(held.status).toBe(200);
    const pending = await registerByPhone('Delta Grid', '+8613911112222');
    expect(pending.body).toMatchObject({ code: 400, msg: 'Phone number already in use', data: { error: 'PHONE_TAKEN' } });
    // Refused, its name was given back with its phone.
    expect((await t.db.pool.query(`select 1 from username_claims where username = 'delta grid'`)).rowCount).toBe(0);

    const approved = await t.api('tenant.approve', { token: adminToken, body: { id: held.body.data.id } });
    expect(approved.status).toBe(200);
    await t.platform.runner.catchUp();
    const holder = await t.db.pool.query(`select owner from claims where scope = 'user.phone' and key = '13911112222'`);
    expect(holder.rows).toEqual([{ owner: approved.body.data.adminUserId }]);
    expect((await registerByPhone('Delta Grid', '8613911112222')).body.data.error).toBe('PHONE_TAKEN');

    const rejected = await registerByPhone('Epsilon Grid', '13911113333');
    expect(rejected.status).toBe(200);
    expect((await t.api('tenant.reject', { token: adminToken, body: { id: rejected.body.data.id } })).status).toBe(200);
    expect((await registerByPhone('Zeta Grid', '+8613911113333')).status).toBe(200);
  });

  it('throttles code resends within 60 seconds', async () => {
    const email = 'throttle@acme.test';
    expect((await t.api('tenant.sendCode', { body: { method: 'email', target: email } })).status).toBe(200);
    const second = await t.api('tenant.sendCode', { body: { method: 'email', target: email }, headers: { lang: 'en' } });
    expect(second.status).toBe(429);
    expect(second.body.data.error).toBe('CODE_TOO_SOON');
  });

  it('refuses a wrong code, and the spec’s field rules, naming the field; nothing is stored', async () => {
    const before = await t.db.pool.query<{ n: number }>('select count(*)::int as n from es_events');
    const email = 'wrongcode@acme.test';
    await t.api('tenant.sendCode', { body: { method: 'email', target: email } });
    const real = await codeSentTo(t, email);
    const wrong = real === '000000' ? '111111' : '000000';
    const badCode = await t.api('tenant.register', {
      body: { tenantName: 'Gamma', contactName: 'X', company: '', method: 'email', email, code: wrong, password: 'secret12' },
    });
    expect(badCode.body.data.error).toBe('CODE_INVALID');

    const cases: Array<[Record<string, unknown>, string]> = [
      [{ tenantName: 'ab' }, 'body.tenantName'],
      [{ password: '12345' }, 'body.password'],
      [{ password: '12345678901234567' }, 'body.password'],
      [{ code: '12345' }, 'body.code'],
      [{ email: 'not-an-email' }, 'body.email'],
      [{ method: 'fax' }, 'body.method'],
      [{ extra: 1 }, 'body.extra'],
    ];
    for (const [change, field] of cases) {
      const response = await t.api('tenant.register', {
        headers: { lang: 'en' },
        body: { tenantName: 'Gamma', contactName: 'X', company: '', method: 'email', email, code: real, password: 'secret12', ...change },
      });
      expect(response.status, JSON.stringify(change)).toBe(400);
      expect(response.body.msg).toContain('Please complete the required fields');
      expect(response.body.data.fields.map((f: { field: string }) => f.field)).toContain(field);
    }
    const phone = await t.api('tenant.sendCode', { body: { method: 'phone', target: '12345' } });
    expect(phone.status).toBe(400);
    const after = await t.db.pool.query<{ n: number }>('select count(*)::int as n from es_events');
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });

  it('answers malformed JSON and oversize bodies with 400 in the envelope', async () => {
    const response = await t.platform.app!.inject({
      method: 'POST',
      url: specOf('auth.login').path,
      headers: { 'content-type': 'application/json' },
      payload: '{"account":',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 400, data: { error: 'BAD_JSON' } });
    const big = await t.platform.app!.inject({
      method: 'POST',
      url: specOf('auth.login').path,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ account: 'x'.repeat(2 * 1024 * 1024), password: 'y', agreement: true }),
    });
    expect(big.statusCode).toBe(400);
    expect(big.json()).toMatchObject({ code: 400, data: { error: 'BODY_TOO_LARGE', fields: [{ field: 'body' }] } });
  });

  it('keeps the audit for the system administrator: a tenant admin and an anonymous caller are refused', async () => {
    expect((await t.api('tenant.list')).status).toBe(401);
    const tenantToken = await t.login('ops@acme.test', 'secret12');
    expect((await t.api('tenant.list', { token: tenantToken })).status).toBe(403);
    expect((await t.api('tenant.approve', { token: tenantToken, body: { id: 'x' } })).status).toBe(403);
  });

  it('says "Username or password incorrect" for a wrong password and an unknown account alike', async () => {
    const wrongPassword = await t.api('auth.login', {
      headers: { lang: 'en' },
      body: { account: 'admin', password: 'nope123', agreement: true },
    });
    const unknown = await t.api('auth.login', {
      headers: { lang: 'en' },
      body: { account: 'ghost', password: 'nope123', agreement: true },
    });
    expect(wrongPassword.body.msg).toBe('Username or password incorrect');
    expect(unknown.body).toEqual(wrongPassword.body);
    const zh = await t.api('auth.login', { body: { account: 'admin', password: 'nope123', agreement: true } });
    expect(zh.body.msg).toBe('用户名或密码错误');
    const noAgreement = await t.api('auth.login', {
      body: { account: 'admin', password: TEST_ADMIN_PASSWORD, agreement: false },
    });
    expect(noAgreement.body.data.error).toBe('AGREEMENT_REQUIRED');
  });

  it('revokes the token on logout', async () => {
    const token = await t.login('admin', TEST_ADMIN_PASSWORD);
    expect((await t.api('auth.currentUser', { token })).status).toBe(200);
    expect((await t.api('auth.logout', { token })).status).toBe(200);
    expect((await t.api('auth.currentUser', { token })).status).toBe(401);
  });
});
