import mqtt, { type MqttClient } from 'mqtt';
import WebSocket from 'ws';
import { channels, type Routes } from '@iot/contracts';
import type { ResultOf } from '@iot/contracts/http/route.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { ok } from '../harness/api.ts';
import { waitFor } from '../harness/process.ts';

/**
 * The telemetry pipeline on the embedded engines (issue 11): devices log in with SN and secret (or a
 * ThingsBoard token), publish on their own topics, values are checked against the thing model, stored in
 * chDB and read back by the latest and history routes; what is refused lands in the dead letters.
 */
let sut: TestPlatform;
let token: string;
let other: string;
let mqttUrl: string;
const devices: Record<string, { id: string; secret: string }> = {};
const clients: MqttClient[] = [];

function connect(username: string, password?: string, clientId = `c-${Math.random().toString(36).slice(2)}`) {
  const client = mqtt.connect(mqttUrl, { username, password, clientId, reconnectPeriod: 0, connectTimeout: 5000 });
  clients.push(client);
  return new Promise<MqttClient>((resolve, reject) => {
    client.once('connect', () => resolve(client));
    client.once('error', reject);
  });
}
const publish = (client: MqttClient, topic: string, payload: unknown, qos: 0 | 1 = 1) =>
  client.publishAsync(topic, typeof payload === 'string' ? payload : JSON.stringify(payload), { qos });
const latest = async (id: string) =>
  Object.fromEntries(ok(await sut.call('telemetry.latest', { token, query: { id } })).map((v) => [v.variable, v])) as Record<
    string,
    ResultOf<Routes['telemetry.latest']>[number] | undefined
  >;

beforeAll(async () => {
  sut = await startTestPlatform({ PRESENCE_OFFLINE_AFTER_MS: '300' });
  mqttUrl = (sut.platform.mqtt as unknown as { url: string }).url;
  await sut.seedTenant({ id: 'papa', name: 'papaCo', adminUsername: 'papaAdmin', adminPassword: 'Papa#pw1' });
  await sut.seedTenant({ id: 'quebec', name: 'quebecCo', adminUsername: 'quebecAdmin', adminPassword: 'Quebec#pw1' });
  token = await sut.login('papaAdmin', 'Papa#pw1');
  other = await sut.login('quebecAdmin', 'Quebec#pw1');
  const product = async (code: string, type: string) => {
    const id = ok(await sut.call('product.create', { token, body: { name: code, code, type } })).id;
    for (const fn of [
      { type: 'property', name: '温度', identifier: 'temperature', dataType: { type: 'float', min: -40, max: 125, unit: '°C' } },
      {
        type: 'property',
        name: '状态',
        identifier: 'state',
        dataType: {
          type: 'enum',
          enumValues: [
            { value: 0, label: '停止' },
            { value: 1, label: '运行' },
          ],
        },
      },
      {
        type: 'service',
        name: '重启',
        identifier: 'reboot',
        invoke: 'sync',
        timeoutMs: 500,
        inputs: [{ identifier: 'delay', name: '延时', dataType: { type: 'int', min: 0, max: 60 } }],
      },
    ])
      ok(await sut.call('product.defineFunction', { token, body: { productId: id, function: fn } }));
    ok(await sut.call('product.publish', { token, body: { id } }));
    return id as string;
  };
  const direct = await product('PIPE', 'direct');
  const gateway = await product('PIPE-GW', 'gateway');
  const sub = await product('PIPE-SUB', 'subDevice');
  for (const [sn, productId] of [
    ['PIPE-1', direct],
    ['PIPE-2', direct],
    ['PIPE-TB', direct],
    ['PIPE-GW-1', gateway],
  ] as const) {
    const d = ok(await sut.call('device.create', { token, body: { sn, name: sn, productId } }));
    devices[sn] = { id: d.id, secret: d.secret };
  }
  await sut.platform.runner.catchUp();
  const s = ok(
    await sut.call('device.create', {
      token,
      body: { sn: 'PIPE-SUB-1', name: 'meter one', productId: sub, gatewayId: devices['PIPE-GW-1']!.id },
    }),
  );
  devices['PIPE-SUB-1'] = { id: s.id, secret: s.secret };
  await sut.platform.runner.catchUp();
}, 120_000);
afterAll(async () => {
  for (const c of clients) c.end(true);
  await sut?.stop();
});

describe('telemetry pipeline', () => {
  it('stores what a device publishes at QoS 1 before acknowledging it, and shows enums by their labels', async () => {
    const client = await connect('PIPE-1', devices['PIPE-1']!.secret);
    await publish(client, 'devices/PIPE-1/telemetry', { temperature: 21.5, state: 1 });
    const values = await latest(devices['PIPE-1']!.id);
    expect(values.temperature).toMatchObject({ value: 21.5, display: '21.5 °C' });
    expect(values.state).toMatchObject({ value: 1, display: '运行' });
  });

  it("stores a device's samples with its template's retention period, the days the store's TTL keeps them", async () => {
    const productId = ok(await sut.call('device.detail', { token, query: { id: devices['PIPE-1']!.id } })).productId;
    const device = ok(await sut.call('device.create', { token, body: { sn: 'PIPE-KEEP', name: 'PIPE-KEEP', productId } }));
    const tpl = ok(
      await sut.call('template.create', {
        token,
        body: { name: 'keep a week', productId, protocol: 'mqtt', acquisitionPeriod: 60, retentionDays: 7 },
      }),
    ).id;
    ok(await sut.call('template.apply', { token, body: { id: tpl, deviceIds: [device.id] } }));
    await sut.platform.runner.catchUp();
    const client = await connect('PIPE-KEEP', device.secret);
    await publish(client, 'devices/PIPE-KEEP/telemetry', { temperature: 20 });
    const store = sut.platform.timeseries as unknown as { client: { query(q: object): Promise<{ json<T>(): Promise<T[]> }> } };
    const rows = await (
      await store.client.query({
        query: `SELECT DISTINCT retention_days FROM telemetry WHERE device_id = {id:String}`,
        query_params: { id: device.id },
        format: 'JSONEachRow',
      })
    ).json<{ retention_days: number }>();
    expect(rows).toEqual([{ retention_days: 7 }]);
  });

  it('refuses unknown identifiers and out-of-range values one by one, keeps the rest, and records them as dead letters', async () => {
    const client = await connect('PIPE-2', devices['PIPE-2']!.secret);
    await publish(client, 'devices/PIPE-2/telemetry', { temperature: 500, state: 0, humidity: 3, __proto__: 1 });
    await publish(client, 'devices/PIPE-2/telemetry', '{"temperature": ');
    const values = await latest(devices['PIPE-2']!.id);
    expect(Object.keys(values)).toEqual(['state']);
    await sut.platform.ingest!.flush();
    const letters = ok(await sut.call('telemetry.deadLetters', { token, query: { sn: 'PIPE-2' }, headers: { lang: 'en' } }));
    const reasons = letters.rows.map((r: { reason: string }) => r.reason).join(' | ');
    expect(reasons).toContain('temperature (wrong type or out of range)');
    expect(reasons).toContain('humidity (unknown identifier)');
    expect(reasons).toContain('not JSON');
    // Another tenant sees none of them.
    expect(ok(await sut.call('telemetry.deadLetters', { token: other })).total).toBe(0);
  });

  it('refuses a wrong secret, and a device publishing on another device’s topic stores nothing there', async () => {
    await expect(connect('PIPE-1', 'not-the-secret')).rejects.toThrow();
    const client = await connect('PIPE-2', devices['PIPE-2']!.secret);
    const before = await latest(devices['PIPE-1']!.id);
    // The broker refuses the publish and drops the connection: no acknowledgement ever comes.
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    let acknowledged = false;
    void publish(client, 'devices/PIPE-1/telemetry', { temperature: -5 }).then(
      () => (acknowledged = true),
      () => undefined,
    );
    await closed;
    expect(acknowledged).toBe(false);
    expect((await latest(devices['PIPE-1']!.id)).temperature!.value).toBe(before.temperature!.value);
  });

  it('takes ThingsBoard firmware as it is: the token as username, its topics and timestamps', async () => {
    const client = await connect(devices['PIPE-TB']!.secret);
    const ts = Date.UTC(2026, 10, 20, 8, 0, 0);
    await publish(client, 'v1/devices/me/telemetry', [
      { ts, values: { temperature: 30 } },
      { ts: ts + 60_000, values: { temperature: 31 } },
    ]);
    const history = ok(
      await sut.call('telemetry.history', {
        token,
        query: {
          id: devices['PIPE-TB']!.id,
          variables: 'temperature',
          from: new Date(ts - 1).toISOString(),
          to: new Date(ts + 3_600_000).toISOString(),
        },
      }),
    );
    expect(history[0]!.points.map((p) => [p.ts, p.value])).toEqual([
      [new Date(ts).toISOString(), 30],
      [new Date(ts + 60_000).toISOString(), 31],
    ]);
    const buckets = ok(
      await sut.call('telemetry.history', {
        token,
        query: {
          id: devices['PIPE-TB']!.id,
          variables: 'temperature',
          bucket: '15m',
          fn: 'max',
          from: new Date(ts - 1).toISOString(),
          to: new Date(ts + 3_600_000).toISOString(),
        },
      }),
    );
    expect(buckets[0]!.points).toEqual([{ ts: new Date(ts).toISOString(), value: 31, text: null }]);
  });

  it('exports history as CSV and XLSX, streamed', async () => {
    const query = { id: devices['PIPE-TB']!.id, variables: 'temperature', from: '2026-11-20T00:00:00Z', to: '2026-11-21T00:00:00Z' };
    const csv = await sut.call('telemetry.export', { token, query, headers: { lang: 'en' } });
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(
      csv.body
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\n'),
    ).toEqual([
      'Time,Identifier,Name,Value,Display',
      '2026-11-20T08:00:00.000Z,temperature,温度,30,30 °C',
      '2026-11-20T08:01:00.000Z,temperature,温度,31,31 °C',
    ]);
    const xlsx = await sut.call('telemetry.export', { token, query: { ...query, format: 'xlsx' } });
    expect(xlsx.headers['content-type']).toContain('spreadsheetml');
    expect(xlsx.rawPayload.subarray(0, 2).toString()).toBe('PK');
  });

  it('asks to complete the query conditions when the device or variable is missing', async () => {
    const r = await sut.call('telemetry.history', {
      token,
      query: { from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z' },
    });
    expect(r.status).toBe(400);
    expect(r.json!.msg).toBe('请完善查询条件');
  });

  it('lets a gateway publish for its sub-devices, and only for them', async () => {
    const client = await connect('PIPE-GW-1', devices['PIPE-GW-1']!.secret);
    await publish(client, 'gateways/PIPE-GW-1/telemetry', { 'PIPE-SUB-1': { temperature: 42 }, 'PIPE-1': { temperature: 99 } });
    expect((await latest(devices['PIPE-SUB-1']!.id)).temperature!.value).toBe(42);
    expect((await latest(devices['PIPE-1']!.id)).temperature?.value).not.toBe(99);
    // ThingsBoard's gateway API, the sub-device named by its name.
    await publish(client, 'v1/gateway/telemetry', { 'meter one': [{ ts: Date.now(), values: { temperature: 43 } }] });
    expect((await latest(devices['PIPE-SUB-1']!.id)).temperature!.value).toBe(43);
  });

  it('takes readings over HTTP with the device credentials, and refuses wrong ones', async () => {
    const good = ok(
      await sut.call('telemetry.report', {
        body: { sn: 'PIPE-2', secret: devices['PIPE-2']!.secret, data: { temperature: 12.5 } },
      }),
    );
    expect(good).toEqual({ accepted: 1, rejected: [] });
    expect((await latest(devices['PIPE-2']!.id)).temperature!.value).toBe(12.5);
    const bad = await sut.call('telemetry.report', { body: { sn: 'PIPE-2', secret: 'nope', data: { temperature: 1 } } });
    expect(bad.status).toBe(401);
    expect(bad.json!.data.error).toBe('DEVICE_AUTH_FAILED');
  });

  it('refuses HTTP readings of a device at once after its secret is rotated, and after it is disabled', async () => {
    const product = ok(await sut.call('product.create', { token, body: { name: 'PIPE-HTTP', code: 'PIPE-HTTP', type: 'direct' } })).id;
    const temperature = { type: 'property', name: '温度', identifier: 'temperature', dataType: { type: 'float' } };
    ok(await sut.call('product.defineFunction', { token, body: { productId: product, function: temperature } }));
    ok(await sut.call('product.publish', { token, body: { id: product } }));
    const device = ok(await sut.call('device.create', { token, body: { sn: 'PIPE-HTTP-1', name: 'PIPE-HTTP-1', productId: product } }));
    await sut.platform.runner.catchUp();
    const report = (secret: string) => sut.call('telemetry.report', { body: { sn: 'PIPE-HTTP-1', secret, data: { temperature: 20 } } });
    // Accepted, so the credentials are known to the process (what it keeps of them must not outlive the change).
    expect(ok(await report(device.secret)).accepted).toBe(1);
    const rotated = ok(await sut.call('device.rotateSecret', { token, body: { id: device.id } }));
    const old = await report(device.secret);
    expect(old.status).toBe(401);
    expect(old.json!.data.error).toBe('DEVICE_AUTH_FAILED');
    expect(ok(await report(rotated.secret)).accepted).toBe(1);
    ok(await sut.call('device.disable', { token, body: { id: device.id } }));
    const disabled = await report(rotated.secret);
    expect(disabled.status).toBe(401);
    expect(disabled.json!.data.error).toBe('DEVICE_AUTH_FAILED');
  });

  it('pushes values live to listeners of that device, and nothing to another tenant', async () => {
    const base = `${sut.platform.url!.replace('http', 'ws').replace('localhost', '127.0.0.1')}${channels['telemetry.live'].path}`;
    const listen = async (url: string, as: string) => {
      const socket = new WebSocket(url, { headers: { authentication: as } });
      const got: Array<{ deviceId: string; variable: string; value: number }> = [];
      socket.on('message', (data) => got.push(JSON.parse(String(data))));
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      return { socket, got };
    };
    // A device of the other tenant, whose value, reported after the first tenant's, tells that tenant's listener is up to date.
    const theirProduct = ok(
      await sut.call('product.create', { token: other, body: { name: 'Q-LIVE', code: 'Q-LIVE', type: 'direct' } }),
    ).id;
    const temperature = { type: 'property', name: '温度', identifier: 'temperature', dataType: { type: 'float' } };
    ok(await sut.call('product.defineFunction', { token: other, body: { productId: theirProduct, function: temperature } }));
    ok(await sut.call('product.publish', { token: other, body: { id: theirProduct } }));
    const theirDevice = ok(
      await sut.call('device.create', { token: other, body: { sn: 'Q-LIVE-1', name: 'Q-LIVE-1', productId: theirProduct } }),
    );
    await sut.platform.runner.catchUp();

    const mine = await listen(`${base}?deviceIds=${devices['PIPE-1']!.id}`, token);
    const theirs = await listen(base, other);
    const client = await connect('PIPE-1', devices['PIPE-1']!.secret);
    await publish(client, 'devices/PIPE-1/telemetry', { temperature: 66 });
    await publish(client, 'devices/PIPE-1/telemetry', { state: 0 });
    await waitFor('both values pushed', () => mine.got.length >= 2, 10_000);
    expect(mine.got.map((m) => [m.deviceId, m.variable, m.value])).toEqual([
      [devices['PIPE-1']!.id, 'temperature', 66],
      [devices['PIPE-1']!.id, 'state', 0],
    ]);
    ok(await sut.call('telemetry.report', { body: { sn: 'Q-LIVE-1', secret: theirDevice.secret, data: { temperature: 7 } } }));
    await waitFor('the other tenant’s own value pushed', () => theirs.got.length > 0, 10_000);
    expect(theirs.got.map((m) => [m.deviceId, m.variable, m.value])).toEqual([[theirDevice.id, 'temperature', 7]]);
    mine.socket.close();
    theirs.socket.close();
  });

  it('invokes a synchronous service and records request and reply with who asked; a silent device times out', async () => {
    const id = devices['PIPE-2']!.id;
    const command = (params: Record<string, unknown>) =>
      sut.call('device.command', { token, body: { id, kind: 'service', identifier: 'reboot', params } });
    expect((await command({ delay: 'soon' })).json!.data.error).toBe('COMMAND_INVALID');
    for (const c of clients) c.end(true);
    await waitFor('the device’s sessions ended', () => !sut.platform.ingest!.intake.sessionOf(id), 10_000);
    expect(ok(await command({ delay: 1 })).status).toBe('offline');
    const device = await connect('PIPE-2', devices['PIPE-2']!.secret);
    await device.subscribeAsync('devices/PIPE-2/command/+', { qos: 1 });
    device.on('message', (topic, payload) => {
      const message = JSON.parse(String(payload)) as { messageId: string; params: { delay: number } };
      if (message.params.delay === 1)
        void device.publishAsync(`devices/PIPE-2/reply/${message.messageId}`, JSON.stringify({ rebooting: true }), { qos: 1 });
    });
    const replied = ok(await command({ delay: 1 }));
    expect(replied).toMatchObject({ status: 'replied', output: { rebooting: true } });
    expect(ok(await command({ delay: 2 })).status).toBe('timeout');
    const events = await sut.db.pool.query<{ type: string; actor: string }>(
      `select type, metadata->'actor'->>'id' as actor from es_events where stream_name = $1 and type like 'DeviceCommand%' order by global_position`,
      [`device-papa.${id}`],
    );
    expect(events.rows.map((e) => e.type)).toEqual([
      'DeviceCommandSent',
      'DeviceCommandFailed',
      'DeviceCommandSent',
      'DeviceCommandReplied',
      'DeviceCommandSent',
      'DeviceCommandFailed',
    ]);
    expect(events.rows[0]!.actor).not.toBe(id);
  });

  it('records presence: online on connect, offline after the debounce, and a flapping device records nothing more', async () => {
    const id = devices['PIPE-1']!.id;
    const presenceOf = async (deviceId: string) =>
      (
        await sut.db.pool.query<{ type: string; position: number }>(
          `select type, global_position as position from es_events where stream_name = $1 and type in ('DeviceWentOnline', 'DeviceWentOffline') order by global_position`,
          [`device-papa.${deviceId}`],
        )
      ).rows;
    const presenceEvents = async () => (await presenceOf(id)).map((r) => r.type);
    const witness = devices['PIPE-2']!.id;
    // Earlier tests connected PIPE-1 and PIPE-2; let those sessions end and the offline be recorded.
    for (const c of clients) c.end(true);
    for (const deviceId of [id, witness])
      await waitFor(
        'earlier sessions recorded offline',
        async () => (await presenceOf(deviceId)).at(-1)?.type === 'DeviceWentOffline',
        10_000,
      );
    const before = await presenceEvents();
    for (let i = 0; i < 5; i++) {
      const c = await connect('PIPE-1', devices['PIPE-1']!.secret, 'flapper');
      await new Promise((r) => setTimeout(r, 20));
      c.end(true);
      await new Promise((r) => setTimeout(r, 20));
    }
    // Another device connects and leaves after the flapping: its offline, recorded after the same debounce, comes
    // after whatever PIPE-1's connections were to record.
    const mark = (await presenceOf(witness)).at(-1)?.position ?? 0;
    (await connect('PIPE-2', devices['PIPE-2']!.secret)).end(true);
    await waitFor(
      'the later device recorded offline',
      async () => (await presenceOf(witness)).some((e) => e.position > mark && e.type === 'DeviceWentOffline'),
      10_000,
    );
    // Five connections within the debounce: one online, one offline.
    expect((await presenceEvents()).slice(before.length)).toEqual(['DeviceWentOnline', 'DeviceWentOffline']);
    await sut.platform.runner.catchUp();
    const row = ok(await sut.call('device.detail', { token, query: { id } }));
    expect(row.status).toBe('offline');
    expect(row.lastReportAt).not.toBeNull();
  });
});
