// First: mqtt-packet's `debug` calls cost nothing (quiet-debug.ts); the frames and the sink below load mqtt-packet before the platform does.
import '@iot/infra/mqtt/quiet-debug.ts';
import { randomUUID } from 'node:crypto';
import type { Histogram } from 'hdr-histogram-js';
import { channels, type StoredFile } from '@iot/contracts';
import { createDevices, type NewDevice } from '@iot/command/device/create.ts';
import { newDeviceSecret } from '@iot/command/device/secrets.ts';
import { createOtaTask } from '@iot/command/ota/handlers.ts';
import { seedDemoTenant } from '@iot/infra/platform.ts';
import { createLookups } from '@iot/infra/read-models/lookups.ts';
import { otaCounts } from '@iot/projections/ota/read.ts';
import { fetchClient } from '../harness/fetch-client.ts';
import { waitFor } from '../harness/process.ts';
import { startBenchPlatform } from './bare.ts';
import type { Figure } from './figure.ts';
import { startGenerator } from './generator.ts';
import { histogram, percentileMs, record } from './latency.ts';
import { startOtaListener } from './ota-listener-child.ts';
import { allocationProfile, cpuProfile } from './profile.ts';
import { OtaProgressTemplate } from './mqtt-frames.ts';
import { startSink } from './sink.ts';

const TENANT = 'otabench';
const CLIENTS = 32;
/** The measured window, and the rate the devices together offer (open loop, each device its share in turn). */
const WINDOW_S = Number(process.env.BENCH_SECONDS ?? 15);
const OFFERED_PER_S = Number(process.env.BENCH_OTA_RATE ?? 6_000);
/** Each report differs from the device's previous one (the same report again records nothing): downloading 0..100, round. */
const reportOf = (n: number) => ({ status: 'downloading', percent: n % 101 });

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** A platform of its own (startBenchPlatform), with a tenant of `count` devices (`OB-<n>`) and the tenant's token. */
export async function startOtaBench(count: number, env: Record<string, string> = {}) {
  const started = await startBenchPlatform('ota', { OTA_TICK_MS: '1000', ...env });
  const { platform, stop } = started;
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
    return { platform, base, mqttUrl: started.mqttUrl, token, users, devices, tenantId: TENANT, rollout, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * When each report was heard on the channel, matched with when it was due: a device's i-th report carries percent
 * i mod 101 (OtaProgressTemplate), so a change heard at `h` is the latest report of that percent due by `h`. Each
 * latency comes with its report's due time.
 */
function latenciesOf(
  dues: Map<string, number[]>,
  heard: Array<{ deviceId: string; percent: number; at: number }>,
): Array<{ due: number; ms: number }> {
  const latencies: Array<{ due: number; ms: number }> = [];
  const matched = new Set<string>();
  for (const { deviceId, percent, at } of heard) {
    const due = dues.get(deviceId);
    if (!due) continue;
    let best = -1;
    for (let i = percent; i < due.length && due[i]! <= at; i += 101) best = i;
    if (best < 0 || matched.has(`${deviceId}|${best}`)) continue;
    matched.add(`${deviceId}|${best}`);
    latencies.push({ due: due[best]!, ms: at - due[best]! });
  }
  return latencies.sort((a, b) => a.ms - b.ms);
}

/** The p99 of the reports due in each second of the window: a backlog built at the start shows as a falling line. */
function p99BySecond(latencies: Array<{ due: number; ms: number }>): number[] {
  const start = latencies.reduce((min, l) => Math.min(min, l.due), Infinity);
  const seconds: Histogram[] = [];
  for (const { due, ms } of latencies) record((seconds[Math.floor((due - start) / 1000)] ??= histogram()), ms);
  return Array.from(seconds, (h) => (h ? Math.round(percentileMs(h, 99)) : 0));
}

/**
 * `ota-bookkeeping` (issue 21): progress events per second through a rollout's bookkeeping, from simulated devices'
 * MQTT progress messages (`devices/{sn}/ota/{taskId}/progress`, QoS 1, acknowledged once recorded) to an event on the
 * device's stream. The raw-socket generator (generator.ts, pre-encoded frames, several processes) offers a fixed rate
 * over a fixed window (open loop); the p99 from the time a report was due to its change on the `ota.progress` websocket
 * channel, heard by a listener of the tenant. After the window, every device's last report must reach the read model
 * (`lost_devices`). The limit, in the same run: raw single-row PostgreSQL inserts from 32 clients over 5 s. The
 * generator's ceiling, in the same run: the same devices against a sink that acknowledges and drops.
 */
export async function benchOtaBookkeeping(): Promise<Figure[]> {
  const count = Number(process.env.BENCH_OTA_DEVICES ?? 2_000);
  const bench = await startOtaBench(count);
  const { platform, devices, users, token } = bench;
  let listener: Awaited<ReturnType<typeof startOtaListener>> | null = null;
  const sink = await startSink();
  const generator = await startGenerator();
  const genDevices = users.map((u) => ({ sn: u.username, secret: u.password }));
  try {
    const { db } = platform.context;
    // The generator's ceiling first: the same devices, as fast as it can, against a sink that drops.
    await generator.connect(sink.url, genDevices, { vars: 1, suffix: 'ota/t/progress', payload: 'ota-progress' });
    const ceiling = await generator.ceiling(5);
    await generator.disconnect();

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
    await generator.connect(bench.mqttUrl, genDevices, { vars: 1, suffix: `ota/${taskId}/progress`, payload: 'ota-progress' });

    // The tenant's listener on the channel, in a process of its own: each device's change, and when it was heard.
    listener = await startOtaListener(`${bench.base.replace('http', 'ws')}${channels['ota.progress'].path}`, token);

    const stopProfile = await cpuProfile('ota-bookkeeping');
    const stopAllocations = await allocationProfile('ota-bookkeeping');
    // CPU time of this process (the platform, its PostgreSQL client, the listener; not the generator's processes nor
    // PostgreSQL): on a shared machine the rate moves with the load, what a report costs much less.
    const cpu = process.cpuUsage();
    const run = await generator.step(OFFERED_PER_S, WINDOW_S, 60_000, { keepDues: true });
    const cpuUsed = process.cpuUsage(cpu);
    await stopProfile();
    await stopAllocations();
    const tookS = Math.max(WINDOW_S, (run.lastAckAt - run.startAt) / 1000);
    const deviceOf = new Map(devices.map((d) => [d.sn, d.deviceId]));
    const dues = new Map(run.dues.map((d) => [deviceOf.get(d.sn)!, d.dues]));

    // Nothing lost: every device's last report reaches the read model.
    const lastOf = new Map([...dues].map(([deviceId, due]) => [deviceId, OtaProgressTemplate.percentOf(due.length - 1)]));
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
    const { deviceIds, percents, ats, frames } = await listener.collect();
    const heard = deviceIds.map((deviceId, i) => ({ deviceId, percent: percents[i]!, at: ats[i]! }));
    const timed = latenciesOf(dues, heard);
    const latencies = timed.map((l) => l.ms);

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
        value: Math.round(run.acked / tookS),
        unit: 'progress events/s',
        limit: Math.round(raw / 5),
        limit_of: 'raw single-row postgres inserts, 32 clients',
        goal: 5_000,
        devices: count,
        window_s: WINDOW_S,
        offered_per_s: OFFERED_PER_S,
        sent: run.sent,
        acked: run.acked,
        unacked: run.unacked,
        refused: run.refused,
        blocked: run.blocked,
        took_s: Math.round(tookS * 10) / 10,
        ack_p99_ms: percentileMs(run.ack, 99),
        send_lag_p99_ms: percentileMs(run.sendLag, 99),
        lost_devices: lost,
        cpu_us_per_report: Math.round((cpuUsed.user + cpuUsed.system) / Math.max(1, run.acked)),
        events: heard.length,
        generator_ceiling_per_s: Math.round(ceiling.acked / 5),
        generator_ceiling_of: `${generator.processes} raw-socket generator processes, the same devices as fast as they can against a sink that acknowledges and drops`,
      },
      {
        bench: 'ota-progress-latency',
        value: latencies.length ? Math.round(percentile(latencies, 99)) : null,
        unit: 'ms (p99 device progress message, from when it was due, to the ota.progress websocket)',
        limit: 500,
        limit_of: 'goal p99',
        p50_ms: Math.round(percentile(latencies, 50)),
        p99_ms_by_second: p99BySecond(timed),
        heard: latencies.length,
        changes: heard.length,
        frames,
        sent: run.sent,
      },
    ];
  } finally {
    await listener?.stop();
    await generator.close();
    await sink.close();
    await bench.stop();
  }
}
