import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationReactor } from '@iot/projections';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * Per-tenant notification settings (issue 12): a tenant's own channels carry its notifications, the platform's
 * carry the others'; caps and quiet hours per tenant; credentials never in an answer or an event.
 */
let sut: TestPlatform;
const mails: Record<'platform' | 'tenant', { to: string; subject: string }[]> = { platform: [], tenant: [] };
const smtps: SMTPServer[] = [];
const logins: string[] = [];
const sms: URLSearchParams[] = [];
let smsServer: Server;
const tokens: Record<string, string> = {};
const deviceOf: Record<string, string> = {};

const ok = (r: { status: number; body: string; json: { data: any } | null }) => {
  expect(r.status, r.body).toBe(200);
  return r.json!.data;
};

async function smtpServer(box: { to: string; subject: string }[]) {
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    onAuth(auth, _session, done) {
      logins.push(`${auth.username}:${auth.password}`);
      done(null, { user: auth.username });
    },
    onData(stream, session, done) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      stream.on('end', () => {
        const subject = /^Subject: (.*)$/m.exec(raw)?.[1] ?? '';
        for (const to of session.envelope.rcptTo) box.push({ to: to.address, subject });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  smtps.push(server);
  return `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
}

/** A tenant with a device, a contact (email and phone) and a configuration sending email, SMS and in-app. */
async function tenant(id: string) {
  const password = `${id[0]!.toUpperCase()}${id}#pw12`;
  await sut.seedTenant({ id, name: `${id}Co`, adminUsername: `${id}Admin`, adminPassword: password });
  const token = await sut.login(`${id}Admin`, password);
  tokens[id] = token;
  const productId = ok(await sut.call('product.create', { token, body: { name: 'Pump', code: `P${id}`, type: 'direct' } })).id;
  ok(
    await sut.call('product.defineFunction', {
      token,
      body: { productId, function: { type: 'property', name: 'p', identifier: 'pressure', dataType: { type: 'float' } } },
    }),
  );
  ok(await sut.call('product.publish', { token, body: { id: productId } }));
  deviceOf[id] = ok(await sut.call('device.create', { token, body: { sn: `SN-${id}`, name: `pump ${id}`, productId } })).id;
  const contactId = ok(
    await sut.call('contact.create', { token, body: { name: 'duty', email: `duty@${id}.example`, phone: '13800000001' } }),
  ).id;
  const templateId = ok(
    await sut.call('notifyTemplate.create', {
      token,
      body: { code: 'T', name: 't', type: 'email', subject: `${id} {{device}} L{{level}}`, content: '{{device}} = {{value}}' },
    }),
  ).id;
  await sut.platform.runner.catchUp();
  ok(
    await sut.call('notifyConfig.create', {
      token,
      body: { name: 'all', source: 'alarm', type: 'email', templateId, sendWays: ['email', 'sms', 'inApp'], contactIds: [contactId] },
    }),
  );
  await sut.platform.runner.catchUp();
}

async function raise(id: string, level: number, value: number) {
  const rows = [{ deviceId: deviceOf[id]!, variable: 'pressure', type: 'device', level, trigger: 'manual', faultFlag: true, value }];
  const entered = ok(await sut.call('alarm.manual', { token: tokens[id], body: { rows } }));
  await sut.platform.runner.catchUp();
  await sut.platform.delivery!.drain();
  return entered.ids[0] as string;
}
const recordsOf = async (alarmId: string) =>
  (
    await sut.db.pool.query<{ send_way: string; status: string; via: string | null }>(
      'select send_way, status, via from notify_records where alarm_id = $1 order by send_way',
      [alarmId],
    )
  ).rows.map((r) => [r.send_way, r.status, r.via]);

const SMS_SECRET = 'TenantSmsKeySecret#77';
const SMTP_PASSWORD = 'TenantSmtpPw#55';

beforeAll(async () => {
  const platformSmtp = await smtpServer(mails.platform);
  smsServer = createServer((req, res) => {
    sms.push(new URL(req.url!, 'http://x').searchParams);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ Code: 'OK', Message: 'OK' }));
  });
  await new Promise<void>((resolve) => smsServer.listen(0, '127.0.0.1', resolve));
  // The tenants' own SMTP and SMS receivers are on loopback: the operator allows that one address (issue 24).
  sut = await startTestPlatform({ SMTP_URL: platformSmtp, NOTIFY_RETRY_MS: '20', OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32' });
  await tenant('quebec');
  await tenant('sierra');
}, 120_000);
afterAll(async () => {
  await sut?.stop();
  for (const s of smtps) await new Promise<void>((resolve) => s.close(() => resolve()));
  await new Promise<void>((resolve) => smsServer.close(() => resolve()));
});

describe('notification settings per tenant', () => {
  it("carries a tenant's mail through its own SMTP server, another tenant's through the platform's, and never answers a credential", async () => {
    const own = await smtpServer(mails.tenant);
    const smtpUrl = own.replace('smtp://', `smtp://quebec:${encodeURIComponent(SMTP_PASSWORD)}@`);
    const saved = ok(
      await sut.call('notify.saveSettings', {
        token: tokens.quebec,
        body: { smtpUrl, smtpFrom: 'alarms@quebec.example', tenantPerMinute: 50, contactPerMinute: 20 },
      }),
    );
    expect(saved.secretsChanged).toEqual(['smtpUrl']);
    const quebec = await raise('quebec', 3, 7);
    const sierra = await raise('sierra', 3, 8);
    // The tenant's own login reached its server.
    expect(logins).toEqual([`quebec:${SMTP_PASSWORD}`]);
    expect(mails.tenant.map((m) => m.to)).toEqual(['duty@quebec.example']);
    expect(mails.platform.map((m) => m.to)).toEqual(['duty@sierra.example']);
    expect(await recordsOf(quebec)).toContainEqual(['email', 'sent', 'smtp']);
    expect(await recordsOf(sierra)).toContainEqual(['email', 'sent', 'smtp']);

    const answer = await sut.call('notify.settings', { token: tokens.quebec });
    expect(answer.body).not.toContain(SMTP_PASSWORD);
    expect(answer.body).not.toContain(encodeURIComponent(SMTP_PASSWORD));
    const settings = ok(answer);
    expect(settings.channels.find((c: { kind: string }) => c.kind === 'email')).toMatchObject({
      configured: true,
      source: 'tenant',
      target: new URL(own).host,
    });
    expect(settings.tenant).toMatchObject({
      smtpFrom: 'alarms@quebec.example',
      tenantPerMinute: 50,
      secrets: { smtpUrl: true, wecomWebhook: false },
    });
    expect(settings).toMatchObject({ tenantPerMinute: 50, contactPerMinute: 20 });
    const other = ok(await sut.call('notify.settings', { token: tokens.sierra }));
    expect(other.channels.find((c: { kind: string }) => c.kind === 'email')).toMatchObject({ source: 'platform' });
    expect(other.tenant.secrets.smtpUrl).toBe(false);
    const events = await sut.db.pool.query<{ data: unknown }>(`select data from es_events where type = 'NotifySettingsUpdated'`);
    expect(events.rows).toHaveLength(1);
    expect(JSON.stringify(events.rows)).not.toContain(SMTP_PASSWORD);
    expect(JSON.stringify(events.rows)).not.toContain(smtpUrl);
    expect(sut.logLines.join('')).not.toContain(SMTP_PASSWORD);

    // Saving again with the credential left out keeps it; nothing changed, nothing is appended.
    ok(
      await sut.call('notify.saveSettings', {
        token: tokens.quebec,
        body: { smtpFrom: 'alarms@quebec.example', tenantPerMinute: 50, contactPerMinute: 20 },
      }),
    );
    await raise('quebec', 3, 9);
    expect(mails.tenant).toHaveLength(2);
    expect((await sut.db.pool.query(`select 1 from es_events where type = 'NotifySettingsUpdated'`)).rowCount).toBe(1);
    // Removing it (null) sends the tenant's mail through the platform again.
    expect(ok(await sut.call('notify.saveSettings', { token: tokens.quebec, body: { smtpUrl: null } })).secretsChanged).toEqual([
      'smtpUrl',
    ]);
    await raise('quebec', 3, 10);
    expect(mails.tenant).toHaveLength(2);
    expect(mails.platform.map((m) => m.to)).toEqual(['duty@sierra.example', 'duty@quebec.example']);
  });

  it('refuses a settings edit that is not well formed', async () => {
    for (const body of [
      { smtpUrl: 'http://mail.example' },
      { quietHours: { start: '25:00', end: '07:00', minLevel: 4, timeZone: 'Asia/Shanghai' } },
      { quietHours: { start: '22:00', end: '07:00', minLevel: 4, timeZone: 'Mars/Olympus' } },
      { tenantPerMinute: 0 },
    ]) {
      const r = await sut.call('notify.saveSettings', { token: tokens.sierra, body });
      expect([r.status, r.json?.code], JSON.stringify(body)).toEqual([400, 400]);
    }
  });

  it('sends no SMS during quiet hours below the chosen level, but still email and in-app; at or above it, SMS too', async () => {
    const hhmm = (d: Date) => d.toISOString().slice(11, 16);
    const now = Date.now();
    ok(
      await sut.call('notify.saveSettings', {
        token: tokens.sierra,
        body: {
          smsEndpoint: `http://127.0.0.1:${(smsServer.address() as AddressInfo).port}`,
          smsSignName: 'Sierra',
          smsTemplateCode: 'SMS_1',
          smsAccessKeyId: 'sierraKeyId',
          smsAccessKeySecret: SMS_SECRET,
          quietHours: { start: hhmm(new Date(now - 3_600_000)), end: hhmm(new Date(now + 3_600_000)), minLevel: 4, timeZone: 'UTC' },
        },
      }),
    );
    const quiet = await raise('sierra', 3, 11);
    expect(await recordsOf(quiet)).toEqual([
      ['email', 'sent', 'smtp'],
      ['inApp', 'sent', 'inbox'],
    ]);
    expect(sms).toHaveLength(0);
    const urgent = await raise('sierra', 4, 12);
    expect(await recordsOf(urgent)).toEqual([
      ['email', 'sent', 'smtp'],
      ['inApp', 'sent', 'inbox'],
      ['sms', 'sent', 'sms'],
    ]);
    expect(sms.map((q) => [q.get('PhoneNumbers'), q.get('SignName'), q.get('AccessKeyId')])).toEqual([
      ['13800000001', 'Sierra', 'sierraKeyId'],
    ]);
    const answer = await sut.call('notify.settings', { token: tokens.sierra });
    expect(answer.body).not.toContain(SMS_SECRET);
    expect(answer.body).not.toContain('sierraKeyId');
    expect(ok(answer).channels.find((c: { kind: string }) => c.kind === 'sms')).toMatchObject({ configured: true, source: 'tenant' });
    // Outside the quiet hours (moved away from now), a low level goes by SMS as well.
    ok(
      await sut.call('notify.saveSettings', {
        token: tokens.sierra,
        body: {
          smsEndpoint: `http://127.0.0.1:${(smsServer.address() as AddressInfo).port}`,
          smsSignName: 'Sierra',
          smsTemplateCode: 'SMS_1',
          quietHours: { start: hhmm(new Date(now + 7_200_000)), end: hhmm(new Date(now + 10_800_000)), minLevel: 4, timeZone: 'UTC' },
        },
      }),
    );
    const daytime = await raise('sierra', 2, 13);
    expect(await recordsOf(daytime)).toContainEqual(['sms', 'sent', 'sms']);
    expect(sms).toHaveLength(2);
  });
});

describe('the in-app inbox per user', () => {
  it("keeps each user's read marks: user A reading a message leaves it unread for user B", async () => {
    const token = tokens.quebec!;
    const roleId = ok(
      await sut.call('role.create', {
        token,
        body: { name: 'inbox readers', menuIds: ['alarm.notifyRecords', 'alarm.notifyRecords.list', 'alarm.notifyRecords.read'] },
      }),
    ).id;
    ok(
      await sut.call('user.create', {
        token,
        body: {
          username: 'quebecReader',
          password: 'Reader#pw12',
          email: 'reader@quebec.example',
          phone: '13900000002',
          sex: 'unknown',
          status: 'enabled',
          roleIds: [roleId],
        },
      }),
    );
    await sut.platform.runner.catchUp();
    const reader = await sut.login('quebecReader', 'Reader#pw12');
    const inbox = async (t: string) => ok(await sut.call('notifyRecord.unread', { token: t }));
    ok(await sut.call('notifyRecord.read', { token, body: {} }));
    ok(await sut.call('notifyRecord.read', { token: reader, body: {} }));
    expect((await inbox(token)).unread).toBe(0);

    await raise('quebec', 3, 21);
    await raise('quebec', 3, 22);
    const [admin, other] = [await inbox(token), await inbox(reader)];
    expect([admin.unread, other.unread]).toEqual([2, 2]);
    // A reads one message: it is read for A only.
    const first = admin.latest[0].id as string;
    expect(ok(await sut.call('notifyRecord.read', { token, body: { ids: [first] } })).updated).toBe(1);
    expect((await inbox(token)).unread).toBe(1);
    expect((await inbox(token)).latest.find((m: { id: string }) => m.id === first).read).toBe(true);
    expect((await inbox(reader)).unread).toBe(2);
    expect((await inbox(reader)).latest.find((m: { id: string }) => m.id === first).read).toBe(false);
    // Reading it again changes nothing; B marks all read, A still has one unread.
    expect(ok(await sut.call('notifyRecord.read', { token, body: { ids: [first] } })).updated).toBe(0);
    expect(ok(await sut.call('notifyRecord.read', { token: reader, body: {} })).updated).toBe(2);
    expect([(await inbox(token)).unread, (await inbox(reader)).unread]).toEqual([1, 0]);
    // The records list answers the caller's own read flag too.
    const unreadForA = ok(await sut.call('notifyRecord.list', { token, query: { sendWay: 'inApp', read: 'false' } }));
    expect(unreadForA.rows).toHaveLength(1);
    const unreadForB = ok(await sut.call('notifyRecord.list', { token: reader, query: { sendWay: 'inApp', read: 'false' } }));
    expect(unreadForB.rows).toHaveLength(0);
    expect(unreadForB.total).toBe(0);
    // A message arriving later is unread for both.
    await raise('quebec', 3, 23);
    expect([(await inbox(token)).unread, (await inbox(reader)).unread]).toEqual([2, 1]);
  });
});

describe('storm caps across processes', () => {
  it('counts per recipient and minute in Postgres: two notification reactors racing write one record per recipient, not two', async () => {
    await tenant('tango');
    ok(await sut.call('notify.saveSettings', { token: tokens.tango, body: { contactPerMinute: 1 } }));
    // Both transactions in the same minute.
    if (new Date().getSeconds() >= 55) await new Promise((resolve) => setTimeout(resolve, (61 - new Date().getSeconds()) * 1000));
    const raised = (alarmId: string) => ({
      id: alarmId,
      streamName: `alarm-tango.${alarmId}`,
      version: 1,
      position: '0',
      recordedAt: new Date(),
      type: 'AlarmRaised',
      data: {
        alarmId,
        ruleId: null,
        ruleName: 'race',
        deviceId: deviceOf.tango,
        variable: 'pressure',
        type: 'device',
        category: null,
        mode: null,
        level: 3,
        trigger: 'manual',
        threshold: null,
        value: 1,
        text: null,
        at: new Date().toISOString(),
        faultFlag: true,
        cause: null,
        suggestion: null,
        push: 'firstTime',
        pushIntervalMin: null,
      },
      metadata: {
        tenantId: 'tango',
        actor: { kind: 'system' as const, id: 'test' },
        correlationId: alarmId,
        causationId: null,
        occurredAt: new Date().toISOString(),
        schemaVersion: 1,
      },
    });
    // Two processes' reactors, each in its own transaction; the first holds its transaction open.
    const caps = { tenantPerMinute: 1000, contactPerMinute: 1000 };
    const [first, second] = [notificationReactor(caps), notificationReactor(caps)];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let applied!: () => void;
    const firstApplied = new Promise<void>((resolve) => (applied = resolve));
    const one = sut.db.pool.transaction(async (tx) => {
      await first.apply(tx, raised('race-alarm-1'));
      applied();
      await gate;
    });
    await firstApplied;
    let secondDone = false;
    const two = sut.db.pool
      .transaction((tx) => second.apply(tx, raised('race-alarm-2')))
      .then(() => {
        secondDone = true;
      });
    // The second waits on the counters the first holds: it cannot count without seeing the first's notifications.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(secondDone).toBe(false);
    release();
    await Promise.all([one, two]);
    const records = await sut.db.pool.query<{ alarm_id: string; send_way: string }>(
      `select alarm_id, send_way from notify_records where tenant_id = 'tango' order by send_way`,
    );
    expect(records.rows.map((r) => [r.alarm_id, r.send_way])).toEqual([
      ['race-alarm-1', 'email'],
      ['race-alarm-1', 'inApp'],
      ['race-alarm-1', 'sms'],
    ]);
    const held = await sut.db.pool.query<{ n: number }>(`select sum(suppressed)::int as n from notify_storm where tenant_id = 'tango'`);
    expect(held.rows[0]!.n).toBe(3);
  });
});
