import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import pino from 'pino';
import WebSocket from 'ws';
import { channels, type OtaProgressFeed, type StoredFile } from '@iot/contracts';
import { createDevices, type NewDevice } from '@iot/command/device/create.ts';
import { newDeviceSecret } from '@iot/command/device/secrets.ts';
import { createOtaTask } from '@iot/command/ota/handlers.ts';
import { loadConfig } from '@iot/infra/config.ts';
import { startEmbeddedPostgres } from '@iot/infra/postgres/embedded.ts';
import { seedDemoTenant, startPlatform, type Platform } from '@iot/infra/platform.ts';
import { createLookups } from '@iot/infra/read-models/lookups.ts';
import { otaCounts } from '@iot/projections/ota/read.ts';
import { fetchClient } from '../harness/fetch-client.ts';
import { freePort } from '../harness/free-port.ts';
import { waitFor } from '../harness/process.ts';
import type { Figure } from './figure.ts';
import { startSink } from './sink.ts';

const TENANT = 'otabench';
const CLIENTS = 32;
/** The measured window, and the rate the devices together offer (each device its share, one report at a time). */
const WINDOW_S = Number(process.env.BENCH_SECONDS ?? 15);
const OFFERED_PER_S = Number(process.env.BENCH_OTA_RATE ?? 8_000);
/** Each report differs from the device's previous one (the same report again records nothing): downloading 0..100, round. */
const reportOf = (n: number) => ({ status: 'downloading', percent: n % 101 });

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** MQTT.js clients, 50 connecting at a time. */
export async function connectAll(url: string, users: Array<{ username: string; password: string }>): Promise<MqttClient[]> {
  const clients: MqttClient[] = [];
  for (let i = 0; i < users.length; i += 50)
    clients.push(
      ...(await Promise.all(
        users.slice(i, i + 50).map(async ({ username, password }) => {
          const c = await connectAsync(url, { username, password, clientId: username, reconnectPeriod: 0 });
          c.on('error', () => {});
          return c;
        }),
      )),
    );
  return clients;
}

/**
 * Every device sends its reports for `seconds`, at most `perDevice` a second, one at a time (QoS 1: the next once the
 * platform acknowledged, i.e. recorded, the last). Answers how many were acknowledged within the window, and each
 * device's count (its last report is `reportOf(count - 1)`).
 */
async function drive(
  clients: MqttClient[],
  topicOf: (d: number) => string,
  seconds: number,
  perDevice: number,
  onSend: (d: number, n: number) => void = () => {},
) {
  const sent = new Array<number>(clients.length).fill(0);
  let inWindow = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  const gap = 1000 / perDevice;
  await Promise.all(
    clients.map(async (client, d) => {
      // Spread over the first gap, so that the devices do not all send at once.
      let next = started + (gap * d) / clients.length;
      while (next < end) {
        const wait = next - performance.now();
        if (wait > 1) await sleep(wait);
        onSend(d, sent[d]!);
        await client.publishAsync(topicOf(d), JSON.stringify(reportOf(sent[d]!)), { qos: 1 });
        sent[d]! += 1;
        if (performance.now() <= end) inWindow += 1;
        next = Math.max(next + gap, performance.now() - gap);
      }
    }),
  );
  return { inWindow, sent };
}

/** A platform of its own on an embedded PostgreSQL, with a tenant of `count` devices (`OB-<n>`) and the tenant's token. */
export async function startOtaBench(count: number, env: Record<string, string> = {}) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'dc-bench-ota-'));
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), database: 'postgres' });
  const mqttPort = await freePort();
  const platform: Platform = await startPlatform(
    loadConfig({
      DATABASE_URL: pg.url,
      DATA_DIR: dir,
      ADMIN_PASSWORD: 'Bench#adm1',
      LOG_LEVEL: 'silent',
      MQTT_PORT: String(mqttPort),
      OTA_TICK_MS: '1000',
      ...env,
    }),
    { port: await freePort(), staticDir: null, seedDemo: false, logger: pino({ level: 'silent' }) },
  );
  const stop = async () => {
    await platform.stop();
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await seedDemoTenant(platform.context, { id: TENANT, name: 'otabenchco', adminUsername: 'otabench', adminPassword: 'Bench#pw1' });
    const base = platform.url!.replace('localhost', '127.0.0.1');
    const api = fetchClient(base);
    const { token } = await api.data('auth.login', { body: { account: 'otabench', password: 'Bench#pw1', agreement: true } });
    const product = await api.data('product.create', { token, body: { name: 'ota bench', code: 'OTA-BENCH', type: 'direct' } });
    const context = { tenantId: TENANT, actor: { kind: 'system' as const, id: 'bench' } };
    const users: Array<{ username: string; password: string }> = [];
    const devices: NewDevice[] = Array.from({ length: count }, (_, i) => {
      const sn = `OB-${i}`;
      const { secret, hash } = newDeviceSecret();
      users.push({ username: sn, password: secret });
      const location = { lng: null, lat: null, address: null };
      const fields = { name: sn, productId: product.id, modelVersion: 0, nodeType: 'direct' as const, groupId: null, gatewayId: null };
      return { deviceId: randomUUID(), sn, ...fields, location, version: '1.0', tags: [], remark: null, secretHash: hash };
    });
    for (let i = 0; i < devices.length; i += 1_000) await createDevices(platform.context, context, devices.slice(i, i + 1_000));
    await platform.runner.catchUp(120_000);
    const { db, store } = platform.context;

    /** A one-wave rollout of `file` to every device; resolves once every offer is in the read model, unless told not to wait. */
    const rollout = async (file: StoredFile, { waitOffered = true } = {}) => {
      const taskId = await createOtaTask(
        { store, lookups: createLookups(db) },
        context,
        {
          name: 'bench',
          fileId: file.id,
          target: { kind: 'devices', deviceIds: devices.map((d) => d.deviceId) },
          waves: { size: count, pauseSec: 0, failurePercent: 100 },
        },
        async () => file,
      );
      if (!waitOffered) return taskId;
      // The counts are empty until the read model has the task: every device must be counted, none waiting for its offer.
      await waitFor(
        'every device offered',
        async () => {
          const counts = (await otaCounts(db, [taskId])).get(taskId);
          return counts?.total === count && counts.nonExecution === 0;
        },
        600_000,
        200,
      );
      return taskId;
    };
    return { platform, base, mqttUrl: `mqtt://127.0.0.1:${mqttPort}`, token, users, devices, tenantId: TENANT, rollout, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * `ota-bookkeeping` (issue 21): progress events per second through a rollout's bookkeeping, from simulated devices'
 * MQTT progress messages (`devices/{sn}/ota/{taskId}/progress`, QoS 1, acknowledged once recorded) to an event on the
 * device's stream, over a fixed window at a fixed offered rate; and the p99 from a device's message to its change on
 * the `ota.progress` websocket channel, heard by a listener of the tenant. After the window, every device's last
 * report must reach the read model (`lost_devices`). The limit, in the same run: raw single-row PostgreSQL inserts
 * from 32 clients over 5 s. The generator's ceiling: the same devices against a sink that acknowledges and drops.
 */
export async function benchOtaBookkeeping(): Promise<Figure[]> {
  const count = Number(process.env.BENCH_OTA_DEVICES ?? 500);
  const bench = await startOtaBench(count);
  const { platform, devices, users, token } = bench;
  let clients: MqttClient[] = [];
  let socket: WebSocket | null = null;
  const sink = await startSink();
  try {
    const { db } = platform.context;
    // The generator's ceiling first: the same devices and schedule, at 4x the rate, against a sink that drops.
    const sinkClients = await connectAll(sink.url, users);
    const ceiling = await drive(sinkClients, (d) => `devices/OB-${d}/ota/t/progress`, 5, (OFFERED_PER_S * 4) / count);
    await Promise.all(sinkClients.map((c) => c.endAsync(true).catch(() => {})));

    clients = await connectAll(bench.mqttUrl, users);
    const taskId = await bench.rollout({
      id: 'fw-bench',
      tenantId: bench.tenantId,
      name: 'fw.bin',
      size: 1_048_576,
      sha256: 'b'.repeat(64),
      fileType: 'upgrade',
      extensionType: null,
      version: '2.0',
      storageKey: `${bench.tenantId}/fw-bench`,
    });

    // The tenant's listener on the channel: when each device's report is heard, against when it was sent.
    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    socket = new WebSocket(`${bench.base.replace('http', 'ws')}${channels['ota.progress'].path}`, { headers: { authentication: token } });
    socket.on('message', (data) => {
      const m = JSON.parse(String(data)) as OtaProgressFeed;
      if (m.type !== 'device' || m.stage !== 'downloading') return;
      const key = `${m.deviceId}|${m.percent}`;
      const at = sentAt.get(key);
      if (at === undefined) return;
      sentAt.delete(key);
      latencies.push(performance.now() - at);
    });
    await new Promise((resolve, reject) => socket!.once('open', resolve).once('error', reject));

    const run = await drive(
      clients,
      (d) => `devices/OB-${d}/ota/${taskId}/progress`,
      WINDOW_S,
      OFFERED_PER_S / count,
      (d, n) => sentAt.set(`${devices[d]!.deviceId}|${reportOf(n).percent}`, performance.now()),
    );
    const events = run.sent.reduce((a, b) => a + b, 0);

    // Nothing lost: every device's last report reaches the read model.
    const lastOf = new Map(devices.map((d, i) => [d.deviceId, reportOf(run.sent[i]! - 1).percent]));
    let lost = count;
    await waitFor(
      "every device's last report in the read model",
      async () => {
        const rows = await db.query<{ deviceId: string; percent: number | null }>(
          `select device_id as "deviceId", percent from rm_ota_devices where task_id = $1 and stage = 'downloading'`,
          [taskId],
        );
        lost = count - rows.rows.filter((r) => lastOf.get(r.deviceId) === r.percent).length;
        return lost === 0;
      },
      120_000,
      500,
    ).catch(() => undefined);
    latencies.sort((a, b) => a - b);

    // The limit: raw single-row inserts from 32 clients over 5 s.
    await db.query('create table bench_ota_raw (id bigserial primary key, device text, body jsonb)');
    const rawEnd = performance.now() + 5_000;
    let raw = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        while (performance.now() < rawEnd) {
          await db.query('insert into bench_ota_raw (device, body) values ($1, $2)', [`OB-${c}`, JSON.stringify(reportOf(raw))]);
          raw += 1;
        }
      }),
    );
    return [
      {
        bench: 'ota-bookkeeping',
        value: Math.round(run.inWindow / WINDOW_S),
        unit: 'progress events/s',
        limit: Math.round(raw / 5),
        limit_of: 'raw single-row postgres inserts, 32 clients',
        goal: 5_000,
        devices: count,
        window_s: WINDOW_S,
        offered_per_s: OFFERED_PER_S,
        events,
        lost_devices: lost,
        generator_ceiling_per_s: Math.round(ceiling.inWindow / 5),
        generator_ceiling_of: 'the same devices at 4x the offered rate against a sink that acknowledges and drops',
      },
      {
        bench: 'ota-progress-latency',
        value: latencies.length ? Math.round(percentile(latencies, 99)) : null,
        unit: 'ms (p99 device progress message to the ota.progress websocket)',
        limit: 500,
        limit_of: 'goal p99',
        p50_ms: Math.round(percentile(latencies, 50)),
        heard: latencies.length,
        events,
      },
    ];
  } finally {
    socket?.close();
    await Promise.all(clients.map((c) => c.endAsync(true).catch(() => {})));
    await sink.close();
    await bench.stop();
  }
}
