import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMosquittoAccounts } from '@iot/infra/broker-accounts/mosquitto.ts';
import { topicOf, topicTable } from '@iot/ingest';
import { createTimeSeriesStore } from '@iot/infra/timeseries/index.ts';
import { resolveEngine } from '../harness/engines.ts';
import { startMosquitto } from '../harness/mosquitto.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';
import { onboardTenant, PROCESS_ADMIN_PASSWORD, startProcess, waitFor, type PlatformProcess } from '../harness/process.ts';

/**
 * The platform at scale on Mosquitto (issue 11): devices log in against the broker's dynamic-security plugin,
 * whose accounts the platform provisions as devices are created, rotated, disabled and deleted, and two
 * processes that ingest (`--role all` and `--role ingest`) split the devices' messages through a shared
 * subscription. Each process stores into its own chDB here (no ClickHouse server on this machine; with
 * CLICKHOUSE_URL they share one): the first one's share comes back from the history query, the second's from
 * its store once it has stopped, and together they hold every value once.
 */
const HEARTBEAT_MS = 6000;
let broker: { url: string; adminUrl: string; stop(): Promise<void> } | undefined;
let skipped: string | undefined;
let db: TestDatabase;
const dirs: string[] = [];
let all: PlatformProcess;
let ingest: PlatformProcess;
let ingestEnv: Record<string, string>;
/** The `--role ingest` process, always on the same data folder and MQTT session. */
const startIngest = () => startProcess(db, dirs[1]!, ingestEnv, ['--role', 'ingest']);
let token: string;
let tenantId: string;
let productId: string;
const clients: MqttClient[] = [];

const ok = (r: { status: number; json: { data: any } | null }) => {
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json!.data;
};

/** A device connects with its SN as client id, as its account requires. */
async function device(username: string, password: string, clientId = username): Promise<MqttClient> {
  const client = await connectAsync(broker!.url, {
    username,
    password,
    clientId,
    reconnectPeriod: 0,
    connectTimeout: 5000,
  });
  clients.push(client);
  return client;
}
/** Whether the broker lets the device in now. */
const admitted = (username: string, password: string) =>
  device(username, password).then(
    (c) => (c.end(true), true),
    () => false,
  );

/** Each device's values of `count` in [from, to): through the history query (the `all` process's share). */
async function historyOf(fleet: { sn: string; id: string }[], from: string, to: string): Promise<Map<string, number[]>> {
  const values = async (id: string) =>
    (
      (ok(
        await all.call('GET', `/api/iot/device/history?id=${id}&variables=count&from=${from}&to=${to}&pageSize=5000`, undefined, token),
      )[0]?.points ?? []) as { value: number }[]
    ).map((p) => p.value);
  return new Map(await Promise.all(fleet.map(async (d) => [d.sn, await values(d.id)] as const)));
}

/** The history query's answer once it stops growing. */
async function settledHistory(fleet: { sn: string; id: string }[], from: string, to: string): Promise<Map<string, number[]>> {
  let previous = -1;
  let answer = new Map<string, number[]>();
  await waitFor(
    'the first process to have stored its share',
    async () => {
      answer = await historyOf(fleet, from, to);
      const total = [...answer.values()].reduce((n, v) => n + v.length, 0);
      const settled = total === previous && total > 0;
      previous = total;
      if (!settled) await new Promise((r) => setTimeout(r, 1000));
      return settled;
    },
    60_000,
  );
  return answer;
}

/** What the `--role ingest` process stored, read from its own chDB once it has stopped. */
async function storedByIngest(fleet: { sn: string; id: string }[], from: string, to: string): Promise<Map<string, number[]>> {
  const store = createTimeSeriesStore({ dataDir: dirs[1]! });
  try {
    const answer = new Map<string, number[]>();
    for (const d of fleet) {
      const page = await store.queryHistory({
        tenantId,
        deviceId: d.id,
        variable: 'count',
        from: new Date(from),
        to: new Date(to),
        limit: 5000,
        offset: 0,
      });
      answer.set(
        d.sn,
        page.rows.map((r) => r.value!),
      );
    }
    return answer;
  } finally {
    await store.close();
  }
}

async function createDevice(sn: string): Promise<{ id: string; secret: string }> {
  const d = ok(await all.call('POST', '/api/iot/device', { sn, name: sn, productId }, token));
  return { id: d.id, secret: d.secret };
}

beforeAll(async () => {
  const resolved = await resolveEngine('Mosquitto with dynamic security', 'MOSQUITTO_DYNSEC_ADMIN_URL', async () => {
    const started = await startMosquitto({ dynamicSecurity: true });
    return { url: started.adminUrl, stop: started.stop };
  });
  if (!resolved.ok) {
    skipped = resolved.reason;
    return;
  }
  const adminUrl = resolved.engine.url;
  broker = { url: adminUrl.replace(/\/\/[^@/]*@/, '//'), adminUrl, stop: resolved.engine.stop };
  db = await createTestDatabase();
  for (let i = 0; i < 2; i++) dirs.push(await mkdtemp(path.join(os.tmpdir(), 'dc-mosquitto-')));
  // Presence over this broker comes from reports: a short heartbeat time-out, so the test sees a device go offline.
  const env = {
    MQTT_URL: adminUrl,
    MQTT_DYNSEC: 'true',
    MQTT_SHARE_GROUP: `ingest-${Date.now()}`,
    PRESENCE_HEARTBEAT_MS: String(HEARTBEAT_MS),
  };
  all = await startProcess(db, dirs[0]!, { ...env, MQTT_CLIENT_ID: `ingest-a-${Date.now()}` });
  ingestEnv = { ...env, MQTT_CLIENT_ID: `ingest-b-${Date.now()}` };
  ingest = await startIngest();
  tenantId = await onboardTenant(all, db, 'brokerCo', 'Tenant#pw1');
  token = await waitFor('the tenant administrator', async () => {
    const r = await all.call('POST', '/api/auth/login', { account: 'brokerCo', password: 'Tenant#pw1', agreement: true });
    return r.status === 200 ? (r.json!.data.token as string) : null;
  });
  productId = ok(await all.call('POST', '/api/iot/product', { name: 'meter', code: 'MQ-METER', type: 'direct' }, token)).id;
  ok(
    await all.call(
      'PUT',
      '/api/iot/product/function',
      {
        productId,
        function: { type: 'property', name: '计数', identifier: 'count', dataType: { type: 'int', min: 0, max: 1_000_000 } },
      },
      token,
    ),
  );
  ok(await all.call('POST', '/api/iot/product/publish', { id: productId }, token));
}, 240_000);

afterAll(async () => {
  for (const c of clients) c.end(true);
  await all?.stop();
  await ingest?.stop();
  await db?.drop();
  await broker?.stop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('Mosquitto with dynamic security and two ingest processes', () => {
  it('lets a device created through the API in with its SN and secret, and refuses a wrong secret', async (context) => {
    if (skipped) return context.skip(skipped);
    const d = await createDevice('MQ-1');
    expect(await admitted('MQ-1', d.secret)).toBe(true);
    expect(await admitted('MQ-1', 'not-the-secret')).toBe(false);
    expect(await admitted('MQ-UNKNOWN', d.secret)).toBe(false);
  });

  it('lets a device publish and subscribe only on its own topics', async (context) => {
    if (skipped) return context.skip(skipped);
    const d = await createDevice('MQ-2');
    // What reaches the broker's subscribers, as the platform's account sees it (a subscription of its own, not shared).
    const observer = await connectAsync(broker!.adminUrl, { clientId: `observer-${Date.now()}`, reconnectPeriod: 0 });
    clients.push(observer);
    const seen: string[] = [];
    observer.on('message', (topic, payload) => seen.push(`${topic} ${payload.toString()}`));
    await observer.subscribeAsync(['devices/MQ-1/telemetry', 'devices/MQ-2/telemetry'], { qos: 1 });
    const client = await device('MQ-2', d.secret);

    await expect(client.subscribeAsync('devices/MQ-1/command/+', { qos: 1 })).rejects.toThrow(/Subscribe error/);
    expect(await client.subscribeAsync('devices/MQ-2/command/+', { qos: 1 })).toMatchObject([{ topic: 'devices/MQ-2/command/+', qos: 1 }]);
    // Mosquitto 2.0 disconnects an MQTT 3.1.1 client that publishes where it may not (as the embedded broker does).
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    client.publish('devices/MQ-1/telemetry', JSON.stringify({ count: 666 }), { qos: 1 });
    await closed;
    await (await device('MQ-2', d.secret)).publishAsync('devices/MQ-2/telemetry', JSON.stringify({ count: 7 }), { qos: 1 });

    // Published after the refused one: had that one been forwarded, it would have been seen first.
    await waitFor('the device’s own message', async () => seen.length > 0, 5_000);
    expect(seen).toEqual(['devices/MQ-2/telemetry {"count":7}']);
  });

  it('refuses a disabled device, disconnecting it, and lets it in again once enabled', async (context) => {
    if (skipped) return context.skip(skipped);
    const d = await createDevice('MQ-3');
    const client = await device('MQ-3', d.secret);
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    ok(await all.call('POST', '/api/iot/device/disable', { id: d.id }, token));
    await closed;
    expect(await admitted('MQ-3', d.secret)).toBe(false);
    ok(await all.call('POST', '/api/iot/device/enable', { id: d.id }, token));
    await waitFor('the enabled device to be let in', () => admitted('MQ-3', d.secret), 10_000);
  });

  it('cuts a connected device at once when its secret is rotated and when it is deleted, and shows a disabled one offline at once', async (context) => {
    if (skipped) return context.skip(skipped);
    const statusOf = async (sn: string) =>
      ((ok(await all.call('GET', `/api/iot/device?pageSize=10&sn=${sn}`, undefined, token)).rows as { status: string }[])[0]?.status ??
        null) as string | null;
    const d = await createDevice('MQ-CUT');
    const first = await device('MQ-CUT', d.secret);
    const rotatedAway = new Promise<void>((resolve) => first.once('close', () => resolve()));
    const rotated = ok(await all.call('POST', '/api/iot/device/secret', { id: d.id }, token)).secret as string;
    await rotatedAway;
    const second = await device('MQ-CUT', rotated);
    await second.publishAsync('devices/MQ-CUT/telemetry', JSON.stringify({ count: 1 }), { qos: 1 });
    await waitFor('the reporting device online', async () => (await statusOf('MQ-CUT')) === 'online', 10_000);
    const disabledAway = new Promise<void>((resolve) => second.once('close', () => resolve()));
    ok(await all.call('POST', '/api/iot/device/disable', { id: d.id }, token));
    await disabledAway;
    // Offline now, not after the heartbeat time-out.
    const disabledAt = Date.now();
    await waitFor('the disabled device offline', async () => (await statusOf('MQ-CUT')) === 'offline', HEARTBEAT_MS);
    expect(Date.now() - disabledAt).toBeLessThan(HEARTBEAT_MS / 2);
    ok(await all.call('POST', '/api/iot/device/enable', { id: d.id }, token));
    const third = await waitFor('the enabled device let in', () => device('MQ-CUT', rotated).catch(() => null), 10_000);
    const deletedAway = new Promise<void>((resolve) => third.once('close', () => resolve()));
    ok(await all.call('DELETE', `/api/iot/device?id=${d.id}`, undefined, token));
    await deletedAway;
  });

  it('binds each device to its SN as client id: another device cannot connect under it and take its session over', async (context) => {
    if (skipped) return context.skip(skipped);
    const a = await createDevice('MQ-ID-A');
    const b = await createDevice('MQ-ID-B');
    const victim = await device('MQ-ID-A', a.secret);
    await expect(device('MQ-ID-B', b.secret, 'MQ-ID-A')).rejects.toThrow();
    await expect(device('MQ-ID-B', b.secret, 'any-id')).rejects.toThrow();
    // The victim is still connected: its next message is acknowledged on the same connection.
    await victim.publishAsync('devices/MQ-ID-A/telemetry', JSON.stringify({ count: 1 }), { qos: 1 });
    expect(victim.connected).toBe(true);
  });

  it('walks the topic table: a device neither subscribes to nor reaches another device’s topics', async (context) => {
    if (skipped) return context.skip(skipped);
    const gatewayProduct = ok(await all.call('POST', '/api/iot/product', { name: 'gw', code: 'MQ-WALK-GW', type: 'gateway' }, token)).id;
    const walkers = [
      { sn: 'MQ-W1', gateway: false, ...(await createDevice('MQ-W1')) },
      { sn: 'MQ-W2', gateway: false, ...(await createDevice('MQ-W2')) },
      {
        sn: 'MQ-WG',
        gateway: true,
        ...ok(await all.call('POST', '/api/iot/device', { sn: 'MQ-WG', name: 'MQ-WG', productId: gatewayProduct }, token)),
      },
    ];
    const rows = topicTable.filter((r) => r.names === 'device');
    const got = new Map<string, string[]>();
    const sessions = new Map<string, MqttClient>();
    for (const w of walkers) {
      const client = await waitFor(`${w.sn} let in`, () => device(w.sn, w.secret).catch(() => null), 10_000);
      got.set(w.sn, []);
      client.on('message', (topic, payload) => got.get(w.sn)!.push(`${topic} ${payload.toString()}`));
      for (const row of rows.filter((r) => r.direction === 'down' && (w.gateway || r.device === 'any')))
        await client.subscribeAsync(topicOf(row, w.sn), { qos: 1 });
      sessions.set(w.sn, client);
    }
    // No subscription to another device's topics.
    for (const w of walkers)
      for (const other of walkers.filter((o) => o !== w))
        for (const row of rows.filter((r) => r.direction === 'down'))
          await expect(sessions.get(w.sn)!.subscribeAsync(topicOf(row, other.sn), { qos: 1 })).rejects.toThrow(/Subscribe error/);
    // Every topic of the table, another device's: each attempt on a connection of its own (Mosquitto ends it).
    for (const w of walkers)
      for (const other of walkers.filter((o) => o !== w))
        for (const row of rows) {
          const client = await device(w.sn, w.secret, w.sn);
          const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
          await Promise.race([client.publishAsync(topicOf(row, other.sn, '1'), `walk ${w.sn} ${row.topic}`, { qos: 1 }), closed]);
          client.end(true);
        }
    // The sessions were taken over by those attempts (one client id per device): back, then a positive signal.
    for (const w of walkers) {
      const client = await device(w.sn, w.secret);
      client.on('message', (topic, payload) => got.get(w.sn)!.push(`${topic} ${payload.toString()}`));
      for (const row of rows.filter((r) => r.direction === 'down' && (w.gateway || r.device === 'any')))
        await client.subscribeAsync(topicOf(row, w.sn), { qos: 1 });
      await client.publishAsync(`devices/${w.sn}/command/done`, 'done', { qos: 1 });
    }
    await waitFor('each device’s own signal', async () => walkers.every((w) => got.get(w.sn)!.some((m) => m.endsWith(' done'))), 10_000);
    const strays = walkers.flatMap((w) =>
      got.get(w.sn)!.filter((m) => !m.startsWith(`devices/${w.sn}/`) && !m.startsWith(`gateways/${w.sn}/`)),
    );
    expect(strays).toEqual([]);
  });

  it('takes the new secret after a rotation and refuses the old one; a deleted device is refused', async (context) => {
    if (skipped) return context.skip(skipped);
    const d = await createDevice('MQ-4');
    const rotated = ok(await all.call('POST', '/api/iot/device/secret', { id: d.id }, token));
    expect(await admitted('MQ-4', rotated.secret)).toBe(true);
    expect(await admitted('MQ-4', d.secret)).toBe(false);
    ok(await all.call('DELETE', `/api/iot/device?id=${d.id}`, undefined, token));
    await waitFor('the deleted device to be refused', async () => !(await admitted('MQ-4', rotated.secret)), 10_000);
  });

  it('provisions an imported device, which gets its broker password at its first rotation', async (context) => {
    if (skipped) return context.skip(skipped);
    const imported = await fetch(`${all.url}/api/iot/device/import?jobId=broker-import-1&filename=devices.csv`, {
      method: 'POST',
      headers: { authentication: token, 'content-type': 'text/csv' },
      body: 'sn,name,product\nMQ-IMP-1,imported one,MQ-METER\n',
    });
    expect(((await imported.json()) as { data: unknown }).data).toMatchObject({ created: 1, failed: 0 });
    // The account and its role come from the event log, before anybody knows the secret.
    const accounts = await connectMosquittoAccounts({ url: broker!.adminUrl });
    try {
      const account = await waitFor('the imported device’s account', async () => {
        const r = await accounts.send({ command: 'getClient', username: 'MQ-IMP-1' });
        return r.error ? null : r.data;
      });
      expect(account).toMatchObject({ client: { username: 'MQ-IMP-1', roles: [{ rolename: 'device:MQ-IMP-1' }] } });
    } finally {
      await accounts.close();
    }
    const id = (await db.pool.query<{ id: string }>(`select id from rm_devices where sn = 'MQ-IMP-1'`)).rows[0]!.id;
    const rotated = ok(await all.call('POST', '/api/iot/device/secret', { id }, token));
    expect(await admitted('MQ-IMP-1', rotated.secret)).toBe(true);
  });

  it('answers a synchronous service invoked through one process with the reply the shared subscription may hand the other', async (context) => {
    if (skipped) return context.skip(skipped);
    const valve = ok(await all.call('POST', '/api/iot/product', { name: 'valve', code: 'MQ-VALVE', type: 'direct' }, token)).id;
    for (const fn of [
      { type: 'property', name: '计数', identifier: 'count', dataType: { type: 'int', min: 0, max: 1_000_000 } },
      {
        type: 'service',
        name: 'toggle',
        identifier: 'toggle',
        invoke: 'sync',
        timeoutMs: 5000,
        inputs: [{ identifier: 'pin', name: 'pin', dataType: { type: 'int', min: 0, max: 16 } }],
      },
    ])
      ok(await all.call('PUT', '/api/iot/product/function', { productId: valve, function: fn }, token));
    ok(await all.call('POST', '/api/iot/product/publish', { id: valve }, token));
    const d = ok(await all.call('POST', '/api/iot/device', { sn: 'MQ-C1', name: 'MQ-C1', productId: valve }, token));
    const invoke = async (pin: number) =>
      ok(await all.call('POST', '/api/iot/device/command', { id: d.id, kind: 'service', identifier: 'toggle', params: { pin } }, token));

    // Never heard of over this broker: offline, at once.
    expect(await invoke(1)).toMatchObject({ status: 'offline' });

    const client = await device('MQ-C1', d.secret);
    client.on('message', (topic, payload) => {
      const command = JSON.parse(payload.toString()) as { messageId: string; params: { pin: number } };
      void client.publishAsync(`devices/MQ-C1/reply/${command.messageId}`, JSON.stringify({ pin: command.params.pin, on: true }), {
        qos: 1,
      });
    });
    await client.subscribeAsync('devices/MQ-C1/command/+', { qos: 1 });
    // A report puts it online (an external broker tells no connects), whichever process takes it.
    await client.publishAsync('devices/MQ-C1/telemetry', JSON.stringify({ count: 1 }), { qos: 1 });
    await waitFor(
      'the reporting device to be online',
      async () =>
        (await db.pool.query<{ status: string }>(`select status from rm_devices where id = $1`, [d.id])).rows[0]?.status === 'online',
      15_000,
    );
    // The broker hands the replies to the two processes in turn: each call waits in the first, and gets its reply.
    for (let pin = 2; pin < 8; pin++)
      expect(await invoke(pin), `pin ${pin}`).toMatchObject({ status: 'replied', output: { pin, on: true } });
    const history = ok(await all.call('GET', `/api/iot/device/commands?id=${d.id}&limit=20`, undefined, token)) as { status: string }[];
    expect(history.map((c) => c.status)).toEqual([...Array(6).fill('replied'), 'offline']);
  });

  it('shows a device online in the list while it reports to either process, offline after the heartbeat time-out, online again at its next report', async (context) => {
    if (skipped) return context.skip(skipped);
    const d = await createDevice('MQ-P1');
    const statusInList = async () =>
      ((ok(await all.call('GET', '/api/iot/device?pageSize=10&sn=MQ-P1', undefined, token)).rows as { sn: string; status: string }[])[0]
        ?.status ?? null) as string | null;
    const events = async () =>
      (
        await db.pool.query<{ type: string }>(
          `select type from es_events where stream_name = $1 and type in ('DeviceWentOnline', 'DeviceWentOffline') order by global_position`,
          [`device-${tenantId}.${d.id}`],
        )
      ).rows.map((r) => r.type);
    expect(await statusInList()).toBe('offline');
    const client = await device('MQ-P1', d.secret);
    const report = (i: number) => client.publishAsync('devices/MQ-P1/telemetry', JSON.stringify({ count: i }), { qos: 1 });
    await report(0);
    await waitFor('the reporting device online in the list', async () => (await statusInList()) === 'online', 10_000);
    // Reports for twice the time-out, each once the list has answered for the one before, which the shared
    // subscription splits between the two processes: neither sees them all, and the device stays online throughout.
    const until = Date.now() + 2 * HEARTBEAT_MS;
    for (let i = 1; Date.now() < until; i++) {
      await report(i);
      expect(await statusInList()).toBe('online');
    }
    // Silent: offline once neither process heard from it for the time-out.
    const silentSince = Date.now();
    await waitFor('the silent device offline in the list', async () => (await statusInList()) === 'offline', 3 * HEARTBEAT_MS);
    expect(Date.now() - silentSince).toBeGreaterThanOrEqual(HEARTBEAT_MS - 1500);
    await report(1000);
    await waitFor('the device online again at its next report', async () => (await statusInList()) === 'online', 10_000);
    expect(await events()).toEqual(['DeviceWentOnline', 'DeviceWentOffline', 'DeviceWentOnline']);
  }, 60_000);

  it('sends a desired value set while the device was away once it reports again', async (context) => {
    if (skipped) return context.skip(skipped);
    const thermostat = ok(await all.call('POST', '/api/iot/product', { name: 'thermostat', code: 'MQ-THERMO', type: 'direct' }, token)).id;
    const fn = { type: 'property', name: 'setpoint', identifier: 'setpoint', access: 'rw', dataType: { type: 'float', min: 0, max: 100 } };
    ok(await all.call('PUT', '/api/iot/product/function', { productId: thermostat, function: fn }, token));
    ok(await all.call('POST', '/api/iot/product/publish', { id: thermostat }, token));
    const d = ok(await all.call('POST', '/api/iot/device', { sn: 'MQ-S1', name: 'MQ-S1', productId: thermostat }, token));
    expect(ok(await all.call('POST', '/api/iot/device/desired', { id: d.id, identifier: 'setpoint', value: 21.5 }, token))).toEqual({
      messageId: null,
      status: 'offline',
    });

    const client = await device('MQ-S1', d.secret);
    const got: unknown[] = [];
    client.on('message', (_topic, payload) => got.push(JSON.parse(payload.toString())));
    await client.subscribeAsync('devices/MQ-S1/command/+', { qos: 1 });
    // Back: its first report (to either process) records it online, and the value it does not report goes out.
    await client.publishAsync('devices/MQ-S1/telemetry', JSON.stringify({ setpoint: 18 }), { qos: 1 });
    await waitFor('the desired value sent to the device', async () => got.length > 0, 15_000);
    expect(got).toMatchObject([{ kind: 'property', identifier: 'setpoint', params: { value: 21.5 } }]);
  });

  it('refuses, at once in both processes, the messages still naming a device once it is disabled, and takes them again once enabled', async (context) => {
    if (skipped) return context.skip(skipped);
    const d = await createDevice('MQ-D1');
    const client = await device('MQ-D1', d.secret);
    // The platform's own account may publish on device topics: what a disabled device's messages look like when
    // they reach the processes after it was kicked (queued in a session, in flight).
    const platform = await connectAsync(broker!.adminUrl, { clientId: `stand-in-${Date.now()}`, reconnectPeriod: 0 });
    clients.push(platform);
    const lastReport = async () =>
      (
        await db.pool.query<{ at: Date }>(`select last_report_at as at from device_reports where device_id = $1`, [d.id])
      ).rows[0]?.at.getTime() ?? null;
    const refused = async () =>
      Number(
        (
          await db.pool.query<{ n: string }>(
            `select count(*) as n from ingest_dead_letters where topic = 'devices/MQ-D1/telemetry' and reason = 'unknown or disabled device'`,
          )
        ).rows[0]!.n,
      );
    const t0 = Date.now() - 30_000;
    // Each process takes some of these, and keeps the device for its next messages.
    for (let i = 0; i < 4; i++)
      await client.publishAsync('devices/MQ-D1/telemetry', JSON.stringify({ ts: t0 + i, values: { count: i } }), { qos: 1 });
    await waitFor('the reports stored', async () => (await lastReport()) === t0 + 3, 10_000);

    const kicked = new Promise<void>((resolve) => client.once('close', () => resolve()));
    ok(await all.call('POST', '/api/iot/device/disable', { id: d.id }, token));
    await kicked;
    await new Promise((r) => setTimeout(r, 1500));
    for (let i = 4; i < 8; i++)
      await platform.publishAsync('devices/MQ-D1/telemetry', JSON.stringify({ ts: t0 + i, values: { count: i } }), { qos: 1 });
    await waitFor('every message of the disabled device refused', async () => (await refused()) === 4, 10_000);
    expect(await lastReport()).toBe(t0 + 3);

    ok(await all.call('POST', '/api/iot/device/enable', { id: d.id }, token));
    await new Promise((r) => setTimeout(r, 1500));
    for (let i = 8; i < 12; i++)
      await platform.publishAsync('devices/MQ-D1/telemetry', JSON.stringify({ ts: t0 + i, values: { count: i } }), { qos: 1 });
    await waitFor('the enabled device’s reports stored', async () => (await lastReport()) === t0 + 11, 10_000);
    expect(await refused()).toBe(4);
  });

  it('splits the devices’ messages across both processes and stores every value exactly once', async (context) => {
    if (skipped) return context.skip(skipped);
    const fleet = await Promise.all(['MQ-F1', 'MQ-F2', 'MQ-F3'].map(async (sn) => ({ sn, ...(await createDevice(sn)) })));
    const perDevice = 40;
    const start = Date.now() - 60_000;
    await Promise.all(
      fleet.map(async (d) => {
        const client = await device(d.sn, d.secret);
        for (let i = 0; i < perDevice; i++)
          await client.publishAsync(`devices/${d.sn}/telemetry`, JSON.stringify({ ts: start + i * 100, values: { count: i } }), { qos: 1 });
      }),
    );
    const from = new Date(start - 1000).toISOString();
    const to = new Date(start + perDevice * 100 + 1000).toISOString();

    // The first process's share, through the history query; the second's from its store once it has stopped (it flushes on the way out).
    const viaApi = await settledHistory(fleet, from, to);
    await ingest.stop();
    const viaIngest = await storedByIngest(fleet, from, to);

    const first = [...viaApi.values()].flat().length;
    const second = [...viaIngest.values()].flat().length;
    expect(first, 'messages stored by the --role all process').toBeGreaterThan(0);
    expect(second, 'messages stored by the --role ingest process').toBeGreaterThan(0);
    for (const d of fleet) {
      const values = [...viaApi.get(d.sn)!, ...viaIngest.get(d.sn)!].sort((a, b) => a - b);
      expect(values, d.sn).toEqual([...Array(perDevice).keys()]);
    }
  });

  it('loses nothing when an ingest process is killed mid-stream and restarted on its persistent session', async (context) => {
    if (skipped) return context.skip(skipped);
    ingest = await startIngest();
    const fleet = await Promise.all(['MQ-K1', 'MQ-K2', 'MQ-K3'].map(async (sn) => ({ sn, ...(await createDevice(sn)) })));
    const perDevice = 60;
    const start = Date.now() - 120_000;
    let killed: Promise<unknown> | undefined;
    await Promise.all(
      fleet.map(async (d, n) => {
        const client = await device(d.sn, d.secret);
        for (let i = 0; i < perDevice; i++) {
          // Killed while the devices publish: messages it holds unacknowledged, and those the broker queues for it.
          if (n === 0 && i === perDevice / 3) killed = (ingest.child.kill('SIGKILL'), ingest.exited);
          await client.publishAsync(`devices/${d.sn}/telemetry`, JSON.stringify({ ts: start + i * 100, values: { count: i } }), { qos: 1 });
        }
      }),
    );
    expect(await killed).toBe('SIGKILL');
    ingest = await startIngest();
    const from = new Date(start - 1000).toISOString();
    const to = new Date(start + perDevice * 100 + 1000).toISOString();
    const viaApi = await settledHistory(fleet, from, to);
    await new Promise((r) => setTimeout(r, 2000));
    await ingest.stop();
    const viaIngest = await storedByIngest(fleet, from, to);

    for (const d of fleet) {
      const values = new Set([...viaApi.get(d.sn)!, ...viaIngest.get(d.sn)!]);
      expect(
        [...values].sort((a, b) => a - b),
        d.sn,
      ).toEqual([...Array(perDevice).keys()]);
    }
  });

  it('refuses the devices of a stopped tenant and lets them in again once it is started', async (context) => {
    if (skipped) return context.skip(skipped);
    const d = await createDevice('MQ-T1');
    expect(await admitted('MQ-T1', d.secret)).toBe(true);
    const admin = ok(
      await all.call('POST', '/api/auth/login', { account: 'admin', password: PROCESS_ADMIN_PASSWORD, agreement: true }),
    ).token;
    ok(await all.call('POST', '/api/auth/tenant/stop', { id: tenantId }, admin));
    await waitFor('the stopped tenant’s device to be refused', async () => !(await admitted('MQ-T1', d.secret)), 10_000);
    ok(await all.call('POST', '/api/auth/tenant/start', { id: tenantId }, admin));
    await waitFor('the started tenant’s device to be let in', () => admitted('MQ-T1', d.secret), 10_000);
  });
});
