import ExcelJS from 'exceljs';
import mqtt, { type MqttClient } from 'mqtt';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandDispatchers } from '@iot/command';
import { raiseAlarm } from '@iot/command/alarm/handlers.ts';
import { createAlarmReactor } from '@iot/projections';
import { createDispatch } from '@iot/infra/dispatch.ts';
import { createLookups } from '@iot/infra/read-models/lookups.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * Fault alarms on the embedded engines (issue 12): rules evaluated on telemetry published over MQTT, one
 * active alarm per device and rule whatever the concurrency, a restarted evaluator that neither loses nor
 * doubles an active alarm, manual entries, the lifecycle, and notifications through a real SMTP server.
 */
let sut: TestPlatform;
let token: string;
let productId: string;
let mqttUrl: string;
const devices: Record<string, { id: string; secret: string }> = {};
const clients: MqttClient[] = [];
const mails: { to: string; subject: string }[] = [];
const refuseOnce = new Set<string>(['flaky@example.com']);
let smtp: SMTPServer;

const ok = (r: { status: number; body: string; json: { data: any } | null }) => {
  expect(r.status, r.body).toBe(200);
  return r.json!.data;
};
async function connect(sn: string) {
  const client = mqtt.connect(mqttUrl, { username: sn, password: devices[sn]!.secret, clientId: `c-${sn}`, reconnectPeriod: 0 });
  clients.push(client);
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
  });
  return client;
}
/** An alarm evaluator as a new process would start it: it knows only what the database knows. */
async function freshEvaluator() {
  const { store, db, notifier } = sut.platform.context;
  const ports = {
    store,
    db,
    notifier,
    lookups: createLookups(db),
    live: { publish() {}, listening: () => false },
    timeseries: null,
    intake: null,
    link: null,
  };
  const reactor = createAlarmReactor({
    db,
    dispatch: createDispatch(commandDispatchers(ports)),
    onError: (e) => {
      throw e;
    },
  });
  await reactor.load();
  return reactor;
}

const alarms = async (query: Record<string, string> = {}) => {
  await sut.platform.runner.catchUp();
  return ok(await sut.call('alarm.list', { token, query: { pageSize: '100', ...query } })).rows as {
    id: string;
    value: number | null;
    status: string;
    deviceId: string;
    acknowledged: boolean;
    processed: boolean;
    processNote: string | null;
    count: number;
  }[];
};
/** Publishes values one at a time at QoS 1: each is stored (and evaluated) before the next goes. */
async function report(client: MqttClient, sn: string, values: number[]) {
  for (const temperature of values) await client.publishAsync(`devices/${sn}/telemetry`, JSON.stringify({ temperature }), { qos: 1 });
  // Let the evaluator's dispatched raises and clears land.
  await new Promise((resolve) => setTimeout(resolve, 150));
  await sut.platform.runner.catchUp();
}

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onRcptTo(address, _session, done) {
      if (refuseOnce.delete(address.address)) return done(new Error('451 try again later'));
      done();
    },
    onData(stream, session, done) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      stream.on('end', () => {
        const subject = /^Subject: (.*)$/m.exec(raw)?.[1] ?? '';
        for (const to of session.envelope.rcptTo) mails.push({ to: to.address, subject });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  sut = await startTestPlatform({
    SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
    NOTIFY_RETRY_MS: '20',
    NOTIFY_CONTACT_PER_MIN: '3',
  });
  mqttUrl = (sut.platform.mqtt as unknown as { url: string }).url;
  await sut.seedTenant({ id: 'romeo', name: 'romeoCo', adminUsername: 'romeoAdmin', adminPassword: 'Romeo#pw1' });
  token = await sut.login('romeoAdmin', 'Romeo#pw1');
  productId = ok(await sut.call('product.create', { token, body: { name: 'Boiler', code: 'ALM', type: 'direct' } })).id;
  for (const fn of [
    { type: 'property', name: '温度', identifier: 'temperature', dataType: { type: 'float', min: -40, max: 200 } },
    { type: 'event', name: '过热', identifier: 'overheat', level: 'fault' },
  ])
    ok(await sut.call('product.defineFunction', { token, body: { productId, function: fn } }));
  ok(await sut.call('product.publish', { token, body: { id: productId } }));
  for (const sn of ['ALM-1', 'ALM-2', 'ALM-3', 'ALM-4']) {
    const d = ok(await sut.call('device.create', { token, body: { sn, name: `boiler ${sn}`, productId } }));
    devices[sn] = { id: d.id, secret: d.secret };
  }
  await sut.platform.runner.catchUp();
}, 120_000);
afterAll(async () => {
  for (const c of clients) c.end(true);
  await sut?.stop();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

describe('alarm settings', () => {
  it('refuses a rule on a name that is not a property of the thing model, and one without its threshold', async () => {
    const rule = { name: 'x', productId, variable: 'humidity', type: 'cloud', mode: 'crossUpper', threshold: 1, level: 2 };
    const unknown = await sut.call('alarmRule.create', { token, body: rule });
    expect([unknown.status, unknown.json?.code]).toEqual([400, 400]);
    expect(unknown.json?.msg).toBeTruthy();
    const noThreshold = await sut.call('alarmRule.create', {
      token,
      body: { ...rule, variable: 'temperature', threshold: null },
    });
    expect(noThreshold.status).toBe(400);
    expect(noThreshold.body).toContain('threshold');
  });
});

describe('alarm evaluation on live telemetry', () => {
  let ruleId: string;
  beforeAll(async () => {
    ruleId = ok(
      await sut.call('alarmRule.create', {
        token,
        body: {
          name: 'too hot',
          productId,
          deviceId: devices['ALM-1']!.id,
          variable: 'temperature',
          type: 'cloud',
          mode: 'crossUpper',
          operator: 'gt',
          threshold: 80,
          deadband: 5,
          level: 4,
          cause: 'overheating',
        },
      }),
    ).id;
    await sut.platform.runner.catchUp();
  });

  it('raises once when the value crosses the threshold, holds inside the deadband, clears beyond it', async () => {
    const client = await connect('ALM-1');
    await report(client, 'ALM-1', [70, 85, 90]);
    const deviceId = devices['ALM-1']!.id;
    await expect.poll(async () => (await alarms({ deviceId })).map((a) => [a.status, a.value])).toEqual([['active', 85]]);
    await report(client, 'ALM-1', [78, 79]);
    expect(await alarms({ deviceId })).toHaveLength(1);
    await report(client, 'ALM-1', [74]);
    await expect.poll(async () => alarms({ deviceId })).toEqual([]);
    const history = await alarms({ deviceId, tab: 'history' });
    expect(history.map((a) => a.status)).toEqual(['cleared']);
    // A new crossing is a new alarm with its own id.
    await report(client, 'ALM-1', [95]);
    await expect.poll(async () => (await alarms({ deviceId })).length).toBe(1);
    expect((await alarms({ deviceId }))[0]!.id).not.toBe(history[0]!.id);
  });

  it('keeps one active alarm when 16 evaluations of one device and rule race', async () => {
    const { store, db } = sut.platform.context;
    const deviceId = devices['ALM-2']!.id;
    const raised = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        raiseAlarm(
          { store, db },
          {
            ruleId,
            ruleName: 'too hot',
            deviceId,
            variable: 'temperature',
            type: 'cloud',
            category: null,
            mode: 'crossUpper',
            level: 4,
            trigger: 'first',
            threshold: '> 80',
            value: 81 + i,
            text: null,
            at: new Date(Date.now() + i).toISOString(),
            faultFlag: false,
            cause: null,
            suggestion: null,
            push: 'firstTime',
            pushIntervalMin: null,
          },
          { tenantId: 'romeo', actor: { kind: 'system', id: 'test' }, idempotencyKey: `race-${i}` },
        ),
      ),
    );
    expect(raised.filter((r) => r.raised)).toHaveLength(1);
    expect(new Set(raised.map((r) => r.alarmId)).size).toBe(1);
    expect(await alarms({ deviceId })).toHaveLength(1);
    const streams = await db.query(
      `select count(distinct stream_name)::int as n from es_events where type = 'AlarmRaised' and data->>'deviceId' = $1`,
      [deviceId],
    );
    expect(streams.rows[0]).toEqual({ n: 1 });
  });

  it('a restarted evaluator neither loses nor doubles the active alarm: it clears the one raised before', async () => {
    const deviceId = devices['ALM-1']!.id;
    const before = await alarms({ deviceId });
    expect(before).toHaveLength(1);
    // A new process: its evaluator knows only what the database knows.
    const restarted = await freshEvaluator();
    const device = { deviceId, tenantId: 'romeo', productId };
    const row = (value: number, s: number) => ({
      tenantId: 'romeo',
      deviceId,
      productId,
      variable: 'temperature',
      ts: new Date(Date.now() + s * 1000),
      value,
      text: null,
    });
    restarted.observe(device, [row(99, 1), row(120, 2)]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await alarms({ deviceId })).map((a) => a.id)).toEqual(before.map((a) => a.id));
    restarted.observe(device, [row(20, 3)]);
    await expect.poll(async () => alarms({ deviceId })).toEqual([]);
    expect((await alarms({ deviceId, tab: 'history' })).map((a) => a.id)).toContain(before[0]!.id);
  });

  it('a restarted evaluator goes on with a pending duration window: it raises when the duration is reached, not a whole duration later', async () => {
    const { db } = sut.platform.context;
    const deviceId = devices['ALM-3']!.id;
    const windowRule = ok(
      await sut.call('alarmRule.create', {
        token,
        body: {
          name: 'warm for 10 s',
          productId,
          deviceId,
          variable: 'temperature',
          type: 'cloud',
          mode: 'crossUpper',
          operator: 'gt',
          threshold: 50,
          durationSec: 10,
          level: 2,
        },
      }),
    ).id as string;
    await sut.platform.runner.catchUp();
    const evaluator = freshEvaluator;
    const device = { deviceId, tenantId: 'romeo', productId };
    const t0 = Date.now();
    const row = (value: number, s: number) => ({
      tenantId: 'romeo',
      deviceId,
      productId,
      variable: 'temperature',
      ts: new Date(t0 + s * 1000),
      value,
      text: null,
    });
    const raised = async () => (await alarms({ deviceId, ruleId: windowRule })).map((a) => a.value);
    const before = await evaluator();
    before.observe(device, [row(60, 0), row(61, 4)]);
    await before.flush();
    const snapshot = await db.query<{ breach_since: Date; samples: number }>(
      'select breach_since, samples from alarm_rule_states where key = $1',
      [`${deviceId}:${windowRule}`],
    );
    expect(snapshot.rows.map((r) => [r.breach_since.getTime(), r.samples])).toEqual([[t0, 2]]);
    // The process stops; a new one takes over the window where it was.
    const after = await evaluator();
    after.observe(device, [row(62, 7)]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await raised()).toEqual([]);
    after.observe(device, [row(63, 10.5)]);
    await expect.poll(raised).toEqual([63]);
    // Raised: the window is over, and no longer kept.
    await expect
      .poll(async () => {
        await after.flush();
        return (await db.query('select 1 from alarm_rule_states where key = $1', [`${deviceId}:${windowRule}`])).rowCount;
      })
      .toBe(0);
  });

  it('evaluates values reported over the HTTP ingest route as it does MQTT ones', async () => {
    const deviceId = devices['ALM-1']!.id;
    expect(await alarms({ deviceId })).toEqual([]);
    const posted = await sut.call('telemetry.report', {
      body: { sn: 'ALM-1', secret: devices['ALM-1']!.secret, data: { temperature: 99 } },
    });
    expect(posted.status, posted.body).toBe(200);
    await expect.poll(async () => (await alarms({ deviceId })).map((a) => a.value), { timeout: 5000 }).toEqual([99]);
  });

  it('raises on a thing-model event a device reports, for a rule in event mode', async () => {
    const ruleId = ok(
      await sut.call('alarmRule.create', {
        token,
        body: { name: 'overheat event', productId, variable: 'overheat', type: 'device', mode: 'event', level: 5, autoClear: false },
      }),
    ).id as string;
    await sut.platform.runner.catchUp();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const client = await connect('ALM-3');
    await client.publishAsync('devices/ALM-3/events/overheat', JSON.stringify({ temperature: 150 }), { qos: 1 });
    // Its own rule's alarms only: the duration-window test before it leaves an alarm of its own on ALM-3.
    await expect.poll(async () => (await alarms({ deviceId: devices['ALM-3']!.id, ruleId })).length, { timeout: 5000 }).toBe(1);
  });
});

describe('alarm lifecycle', () => {
  it('refuses more than 10 manual entries with the spec message, and incomplete rows until confirmed', async () => {
    const row = { deviceId: devices['ALM-4']!.id, variable: 'temperature', type: 'device', level: 2, trigger: 'manual', faultFlag: true };
    const eleven = await sut.call('alarm.manual', { token, body: { rows: Array.from({ length: 11 }, () => row) } });
    expect(eleven.status).toBe(400);
    expect(eleven.body).toContain('Only 10 new data can be added at most');
    const incomplete = await sut.call('alarm.manual', { token, body: { rows: [row, { deviceId: row.deviceId }] } });
    expect([incomplete.status, incomplete.json?.msg]).toEqual([400, '信息不完整，是否继续提交？']);
    const entered = ok(
      await sut.call('alarm.manual', {
        token,
        body: { rows: [row, { deviceId: row.deviceId }], confirmIncomplete: true },
      }),
    );
    expect(entered.ids).toHaveLength(2);
    expect(await alarms({ deviceId: row.deviceId })).toHaveLength(2);
  });

  it('acknowledges, processes with a note and clears, recording who; twice changes nothing', async () => {
    const [first] = await alarms({ deviceId: devices['ALM-4']!.id });
    const ack = ok(await sut.call('alarm.ack', { token, body: { ids: [first!.id, 'no-such-alarm'] } }));
    expect(ack.results.map((r: { ok: boolean }) => r.ok)).toEqual([true, false]);
    ok(await sut.call('alarm.process', { token, body: { ids: [first!.id], note: 'replaced the sensor' } }));
    ok(await sut.call('alarm.process', { token, body: { ids: [first!.id], note: 'again' } }));
    const processed = (await alarms({ deviceId: devices['ALM-4']!.id, processed: 'true' }))[0]!;
    expect(processed).toMatchObject({ id: first!.id, acknowledged: true, processed: true, processNote: 'replaced the sensor' });
    ok(await sut.call('alarm.clear', { token, body: { ids: [first!.id] } }));
    const history = await alarms({ deviceId: devices['ALM-4']!.id, tab: 'history' });
    expect(history.map((a) => a.id)).toEqual([first!.id]);
    const events = await sut.platform.context.db.query<{ type: string; actor: string }>(
      `select type, metadata->'actor'->>'id' as actor from es_events where stream_name = $1 order by stream_version`,
      [`alarm-romeo.${first!.id}`],
    );
    expect(events.rows.map((e) => e.type)).toEqual(['AlarmRaised', 'AlarmAcknowledged', 'AlarmProcessed', 'AlarmCleared']);
  });
});

describe('alarm detail and export', () => {
  it("shows an alarm's timeline: raised by the evaluator with its value, acknowledged, processed with the note and cleared by a named user", async () => {
    const [handled] = await alarms({ deviceId: devices['ALM-4']!.id, tab: 'history' });
    const detail = ok(await sut.call('alarm.detail', { token, query: { id: handled!.id } }));
    expect(detail.alarm).toMatchObject({ id: handled!.id, status: 'cleared', processNote: 'replaced the sensor' });
    expect(
      detail.timeline.map((e: { type: string; actorKind: string; actorName: string | null; note: string | null }) => [
        e.type,
        e.actorName,
        e.note,
      ]),
    ).toEqual([
      ['AlarmRaised', 'romeoAdmin', null],
      ['AlarmAcknowledged', 'romeoAdmin', null],
      ['AlarmProcessed', 'romeoAdmin', 'replaced the sensor'],
      ['AlarmCleared', 'romeoAdmin', null],
    ]);
    // An alarm of the evaluator: raised and cleared by the platform, with the values that crossed.
    const evaluated = (await alarms({ deviceId: devices['ALM-1']!.id, tab: 'history' })).find((a) => a.value === 85);
    const auto = ok(await sut.call('alarm.detail', { token, query: { id: evaluated!.id } }));
    expect(
      auto.timeline.map((e: { type: string; actorKind: string; value: number | null; auto: boolean | null }) => [
        e.type,
        e.actorKind,
        e.value,
        e.auto,
      ]),
    ).toEqual([
      ['AlarmRaised', 'system', 85, null],
      ['AlarmCleared', 'system', 74, true],
    ]);
    expect(auto.timeline[0].measuredAt).toEqual(expect.stringMatching(/^\d{4}-/));
    const missing = await sut.call('alarm.detail', { token, query: { id: 'no-such-alarm' } });
    expect(missing.status).toBe(404);
  });

  it('exports the alarm list as XLSX beside CSV, with the filters of the list', async () => {
    const query = { tab: 'history', deviceId: devices['ALM-4']!.id };
    const csv = await sut.call('alarm.export', { token, query });
    expect(csv.status).toBe(200);
    const lines = csv.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\n');
    expect(lines[0]).toMatch(/^id,sn,deviceName,/);
    const history = await alarms(query);
    expect(lines).toHaveLength(history.length + 1);
    const xlsx = await sut.call('alarm.export', { token, query: { ...query, format: 'xlsx' } });
    expect(xlsx.status).toBe(200);
    expect(xlsx.headers['content-type']).toContain('spreadsheetml');
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx.rawPayload as never);
    const sheet = book.worksheets[0]!;
    expect(sheet.rowCount).toBe(history.length + 1);
    expect(sheet.getRow(1).getCell(1).value).toBe('id');
    expect(history.map((a) => a.id)).toContain(sheet.getRow(2).getCell(1).value);
  });
});

describe('notifications', () => {
  let contactIds: string[];
  beforeAll(async () => {
    contactIds = [];
    for (const [name, email] of [
      ['值班员', 'duty@example.com'],
      ['flaky', 'flaky@example.com'],
    ] as const)
      contactIds.push(ok(await sut.call('contact.create', { token, body: { name, email } })).id);
    const bad = await sut.call('contact.create', {
      token,
      body: { name: 'x'.repeat(21), email: 'not-an-email', wechat: '1abc' },
    });
    expect(bad.status).toBe(400);
    const templateId = ok(
      await sut.call('notifyTemplate.create', {
        token,
        body: {
          code: 'HOT',
          name: 'hot',
          type: 'email',
          subject: '告警 {{device}}',
          content: '{{device}} {{variable}} = {{value}} ({{level}}) at {{time}}',
        },
      }),
    ).id;
    const preview = ok(await sut.call('notifyTemplate.preview', { token, body: { content: '{{device}}: {{value}}' } }));
    expect(preview.content).toBe('1号配电柜: 86.5');
    const unknownVariable = await sut.call('notifyTemplate.create', {
      token,
      body: { code: 'X', name: 'x', type: 'email', content: '{{nope}}' },
    });
    expect(unknownVariable.status).toBe(400);
    await sut.platform.runner.catchUp();
    ok(
      await sut.call('notifyConfig.create', {
        token,
        body: { name: 'duty', source: 'alarm', type: 'email', templateId, sendWays: ['email', 'inApp'], contactIds, minLevel: 2 },
      }),
    );
    await sut.platform.runner.catchUp();
  });

  it('sends each matching alarm once per recipient by email, retrying a refused one, and files it in the in-app inbox', async () => {
    const sent = mails.length;
    const entered = ok(
      await sut.call('alarm.manual', {
        token,
        body: {
          rows: [
            {
              deviceId: devices['ALM-4']!.id,
              variable: 'temperature',
              type: 'device',
              level: 3,
              trigger: 'manual',
              faultFlag: true,
              value: 99,
            },
          ],
        },
      }),
    );
    await sut.platform.runner.catchUp();
    await expect
      .poll(
        async () => {
          await sut.platform.delivery!.drain();
          return mails
            .slice(sent)
            .map((m) => m.to)
            .sort();
        },
        { timeout: 5000 },
      )
      .toEqual(['duty@example.com', 'flaky@example.com']);
    const records = ok(await sut.call('notifyRecord.list', { token, query: { alarmId: entered.ids[0] } })).rows as {
      sendWay: string;
      recipient: string;
      status: string;
      attempts: number;
      body: string;
    }[];
    expect(records.map((r) => [r.sendWay, r.recipient, r.status, r.attempts]).sort()).toEqual([
      ['email', 'duty@example.com', 'sent', 1],
      ['email', 'flaky@example.com', 'sent', 2],
      ['inApp', 'inbox', 'sent', 1],
    ]);
    expect(records[0]!.body).toContain('boiler ALM-4 temperature = 99');
    const inbox = ok(await sut.call('notifyRecord.unread', { token }));
    expect(inbox.unread).toBeGreaterThanOrEqual(1);
    ok(await sut.call('notifyRecord.read', { token, body: {} }));
    expect(ok(await sut.call('notifyRecord.unread', { token })).unread).toBe(0);
    // Replaying the reactor's event writes no second record: the outbox is keyed by source, way and recipient.
    await sut.platform.delivery!.drain();
    expect(mails.slice(sent)).toHaveLength(2);
  });

  it('notifies an alarm pushed at an interval again each interval while it stays active, and not once cleared', async () => {
    const { store, db } = sut.platform.context;
    const deviceId = devices['ALM-4']!.id;
    const { alarmId } = await raiseAlarm(
      { store, db },
      {
        ruleId: null,
        ruleName: 'pushed',
        deviceId,
        variable: 'temperature',
        type: 'device',
        category: null,
        mode: null,
        level: 4,
        trigger: 'manual',
        threshold: null,
        value: 120,
        text: null,
        at: new Date().toISOString(),
        faultFlag: true,
        cause: null,
        suggestion: null,
        push: 'interval',
        pushIntervalMin: 5,
      },
      { tenantId: 'romeo', actor: { kind: 'system', id: 'test' }, idempotencyKey: 'interval-push' },
    );
    await sut.platform.runner.catchUp();
    await sut.platform.delivery!.drain();
    const count = async () =>
      (await db.query<{ n: number }>(`select count(*)::int as n from notify_records where alarm_id = $1 and status = 'sent'`, [alarmId]))
        .rows[0]!.n;
    // Email to the two contacts and the in-app inbox.
    const first = 3;
    await expect.poll(count).toBe(first);
    await sut.platform.delivery!.drain();
    expect(await count()).toBe(first);
    // Eleven minutes later, still active: the interval has passed twice, and one more round goes out.
    await sut.db.pool.query(`update rm_alarms set raised_at = raised_at - interval '11 minutes' where id = $1`, [alarmId]);
    await sut.platform.delivery!.drain();
    await expect.poll(count).toBe(2 * first);
    ok(await sut.call('alarm.clear', { token, body: { ids: [alarmId] } }));
    await sut.platform.runner.catchUp();
    await sut.db.pool.query(`update rm_alarms set raised_at = raised_at - interval '30 minutes' where id = $1`, [alarmId]);
    await sut.platform.delivery!.drain();
    expect(await count()).toBe(2 * first);
  });

  it('shows which channels are configured and where, never their credentials', async () => {
    const settings = ok(await sut.call('notify.settings', { token }));
    const email = settings.channels.find((c: { kind: string }) => c.kind === 'email');
    expect(email).toMatchObject({ configured: true, target: expect.stringMatching(/^127\.0\.0\.1:\d+$/) });
    expect(settings.channels.find((c: { kind: string }) => c.kind === 'sms')).toMatchObject({ configured: false, target: null });
    expect(settings).toMatchObject({ contactPerMinute: 3, retryMs: 20 });
  });

  it('caps a storm per recipient and minute, and sends one summary for what it held back', async () => {
    // A fresh minute: no notification written yet, none counted.
    await sut.db.pool.query('delete from notify_records');
    await sut.db.pool.query('delete from notify_rate');
    const sent = mails.length;
    const rows = Array.from({ length: 8 }, (_, i) => ({
      deviceId: devices['ALM-4']!.id,
      variable: 'temperature',
      type: 'device',
      level: 3,
      trigger: 'manual',
      faultFlag: true,
      value: i,
    }));
    ok(await sut.call('alarm.manual', { token, body: { rows } }));
    await sut.platform.runner.catchUp();
    await sut.platform.delivery!.drain();
    const duty = () => mails.slice(sent).filter((m) => m.to === 'duty@example.com');
    expect(duty()).toHaveLength(3);
    // Every alarm is recorded all the same.
    expect((await alarms({ deviceId: devices['ALM-4']!.id })).length).toBeGreaterThanOrEqual(8);
    // The minute is over: one summary per recipient.
    await sut.db.pool.query(`update notify_storm set minute = minute - interval '2 minutes'`);
    await sut.platform.delivery!.drain();
    expect(duty()).toHaveLength(4);
    expect(duty().at(-1)!.subject).toContain('5');
  });
});
