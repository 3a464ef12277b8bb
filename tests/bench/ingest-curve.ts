// Before 'mqtt' loads mqtt-packet: its `debug` calls cost nothing while DEBUG leaves them off.
import '@iot/infra/mqtt/quiet-debug.ts';
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import path from 'node:path';
import { connectAsync } from 'mqtt';
import type { ClickHouseClient } from '@clickhouse/client';
import type { ClickHouseTimeSeriesStore } from '@iot/infra/timeseries/clickhouse.ts';
import { benchProduct, benchTenantApi, registerDevices, startBarePipeline, startBenchPlatform } from './bare.ts';
import { curveChart } from './chart.ts';
import { rollupRuns, rssPeak, type Figure } from './figure.ts';
import { startGenerator, type Generator, type StepResult } from './generator.ts';
import { histogram, percentileMs, record } from './latency.ts';
import type { ProtocolVersion } from './mqtt-frames.ts';
import { cpuProfile } from './profile.ts';
import { startSink } from './sink.ts';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 1000);
/** Publish-to-queryable p99 above this ends the curve. */
const P99_LIMIT_MS = 2000;
/** How long PUBACKs are waited for after a step's last message was due. */
const DRAIN_MS = 5000;

/**
 * Offered rates in data points a second, stepped up until a step fails (BENCH_RATES, comma-separated, overrides).
 * Steps are at most 25% apart where the platform breaks today (15-40k), so that the held figure is not a factor of 2 coarse.
 */
const RATES: Record<number, number[]> = {
  3: [10, 15, 20, 25, 30, 35, 40, 50, 60, 70, 80, 90, 100, 110, 120, 140, 160, 180, 200, 240, 280, 320, 360, 400].map((k) => k * 1000),
  10: [20, 25, 30, 35, 40, 50, 60, 70, 80, 90, 100, 120, 140, 160, 180, 200, 225, 250, 275, 300, 350, 400, 500, 600, 700, 800].map(
    (k) => k * 1000,
  ),
};

export interface CurveStep {
  target: 'platform' | 'bare';
  offered_dp_s: number;
  acked_dp_s: number;
  ack_p50_ms: number;
  ack_p99_ms: number;
  query_p50_ms: number;
  query_p99_ms: number;
  /** Messages offered and not in the store once the step is over (not sent, not acknowledged, or acknowledged and not stored). */
  lost: number;
  /** Messages without PUBACK when the drain time was over, or not sent (connection closed, packet ids exhausted). */
  not_acked: number;
  /** How late the generator wrote messages (p99): if this is large the step says more about the generator. */
  send_lag_p99_ms: number;
  held: boolean;
  rss_mb: number;
  /**
   * Whose the RSS is (issue 23, "Memory"): V8's heap (committed) and the buffers outside it, peaks over the step, and
   * what chDB's memory tracker counts (its queries, caches and background work) at the step's end.
   */
  heap_mb?: number;
  external_mb?: number;
  chdb_mb?: number;
  /** The machine's load average at the step's end: the machine is shared, so a step's figure means little without it. */
  load_1m: number;
  /** The platform's rollup job in the step (figure.ts `rollupRuns`). */
  rollup_runs?: number;
  rollup_ms_per_run?: number | null;
  /** The rollup job's statements in the step: what each took a run on average (ms). */
  rollup_statements_ms?: Record<string, number>;
  /**
   * CPU time of this process (all its threads: the pipeline's JS and chDB's) per message offered in the step, in µs:
   * what a change costs or saves per message, less swayed by the machine's load than the rates are.
   */
  cpu_us_per_msg: number;
}

/** Peaks of V8's committed heap and of its external buffers over a step, and chDB's tracked memory at its end. */
function memorySplit(client: ClickHouseClient) {
  const peak = { heap: 0, external: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    peak.heap = Math.max(peak.heap, m.heapTotal);
    peak.external = Math.max(peak.external, m.external + m.arrayBuffers);
  };
  const timer = setInterval(sample, 500);
  timer.unref();
  const mb = (n: number) => Math.round(n / 2 ** 20);
  return {
    stop: async (): Promise<{ heap_mb: number; external_mb: number; chdb_mb: number }> => {
      clearInterval(timer);
      sample();
      const result = await client.query({
        query: `SELECT value FROM system.metrics WHERE metric = 'MemoryTracking'`,
        format: 'JSONEachRow',
      });
      const [row] = (await result.json()) as { value: string | number }[];
      return { heap_mb: mb(peak.heap), external_mb: mb(peak.external), chdb_mb: mb(Number(row?.value ?? 0)) };
    },
  };
}

/** The rollup job's statements during a step: each one's average time a run, by what it does. */
function rollupStatements(store: unknown) {
  const job = (store as ClickHouseTimeSeriesStore | null)?.rollupJob ?? null;
  const at = new Map([...(job?.statements ?? [])].map(([what, stat]) => [what, { ...stat }]));
  return {
    stop: (): { rollup_statements_ms?: Record<string, number> } => {
      if (!job) return {};
      const out: Record<string, number> = {};
      for (const [what, stat] of job.statements) {
        const before = at.get(what) ?? { count: 0, totalMs: 0 };
        const count = stat.count - before.count;
        if (count > 0) out[what] = Math.round((stat.totalMs - before.totalMs) / count);
      }
      return { rollup_statements_ms: out };
    },
  };
}

/**
 * Publish-to-queryable latencies of a step's messages: each message's v1 is the time it was due, and a row's
 * `received_at` (default now64(3), evaluated by the insert that stored it) is when it reached the store.
 * The insert commits a little after: on the embedded broker the PUBACK comes after the commit, so the step's
 * test uses the larger of the two p99s.
 */
async function stored(client: ClickHouseClient, table: string, step: StepResult, seconds: number) {
  const result = await client.query({
    query: `SELECT toInt64(round(toUnixTimestamp64Milli(received_at) - value)) AS ms, count() AS n FROM ${table}
            WHERE tenant_id = 'bench' AND variable = 'v1' AND value >= {from:Float64} AND value <= {to:Float64} GROUP BY ms`,
    query_params: { from: step.startAt - 1, to: step.startAt + seconds * 1000 + 1 },
    format: 'JSONEachRow',
  });
  const rows = (await result.json()) as { ms: string; n: string }[];
  const h = histogram();
  let count = 0;
  for (const row of rows) {
    record(h, Number(row.ms), Number(row.n));
    count += Number(row.n);
  }
  return { histogram: h, count };
}

/**
 * Returns once what a target still had in hand when its curve ended is stored: a message published after it is
 * acknowledged (QoS 1) once its rows are durable, and both pipelines write rows in the order they took them.
 */
async function drained(url: string, device: { sn: string; secret: string }, vars: number) {
  const client = await connectAsync(url, { username: device.sn, password: device.secret, clientId: device.sn, reconnectPeriod: 0 });
  try {
    // Due at 0: outside every step's range of due times, so that no step counts it.
    const values = Object.fromEntries(Array.from({ length: vars }, (_, i) => [`v${i + 1}`, 0]));
    await client.publishAsync(`devices/${device.sn}/telemetry`, JSON.stringify(values), { qos: 1 });
  } finally {
    await client.endAsync();
  }
}

/**
 * `ingest-curve` and `ingest-curve-10dp` (issue 23): the sustainable-rate curve. 1,000 devices publish `vars`
 * values a message at QoS 1 from the raw-socket generator (generator.ts) at a fixed offered rate, stepped up
 * (10k, 15k, 20k, 25k… dp/s) for BENCH_SECONDS a step, first through the whole platform on its embedded defaults,
 * then through the bare pipeline (bare.ts); a target's curve ends at the first step whose publish-to-queryable
 * or publish-to-PUBACK p99 passes 2 s or that loses anything. The figure is the highest rate held for a whole
 * step. The generator's ceiling against a sink that acknowledges and drops (sink.ts) is measured first, and no
 * step is offered above half of it: a curve still held there is reported as a lower bound (`note`).
 * Prints one line per step and the figures, and writes an SVG chart under bench-results/.
 */
export async function benchIngestCurve(vars: 3 | 10): Promise<Figure[]> {
  const name = vars === 3 ? 'ingest-curve' : 'ingest-curve-10dp';
  const seconds = Number(process.env.BENCH_SECONDS ?? 15);
  const protocolVersion = Number(process.env.BENCH_MQTT_VERSION ?? 4) as ProtocolVersion;
  const rates = process.env.BENCH_RATES ? process.env.BENCH_RATES.split(',').map(Number) : RATES[vars]!;
  const log = (line: string) => process.stderr.write(`${name}: ${line}\n`);

  const bench = await startBenchPlatform('curve');
  const { platform } = bench;
  const bare = await startBarePipeline(platform);
  const sink = await startSink();
  let generator: Generator | null = null;
  try {
    const { call } = await benchTenantApi(platform);
    const productId = await benchProduct(call, `BENCH-CURVE-${vars}`, vars);
    log(`registering ${DEVICES} devices`);
    const devices = await registerDevices(call, productId, 'CURVE', DEVICES);
    await platform.context.awaitProjections?.();
    generator = await startGenerator();
    const client = (platform.timeseries as ClickHouseTimeSeriesStore).client;

    // The generator's own ceiling: same devices, same frames, against a sink that acknowledges and drops.
    await generator.connect(sink.url, devices, { vars, protocolVersion });
    const ceilingRun = await generator.ceiling(seconds);
    await generator.disconnect();
    const ceilingMsgs = ceilingRun.acked / ((ceilingRun.lastAckAt - ceilingRun.startAt) / 1000);
    const ceiling = Math.round(ceilingMsgs * vars);
    log(`generator ceiling ${ceiling} dp/s (${generator.processes} processes)`);

    const steps: CurveStep[] = [];
    const curve = async (target: CurveStep['target'], url: string, table: string, flush: () => Promise<void>) => {
      await generator!.connect(url, devices, { vars, protocolVersion });
      // Warm-up, not counted: sessions, presence (a thousand devices coming online are events) and the JIT settle.
      await generator!.step(rates[0]! / vars, Math.min(2, seconds), DRAIN_MS);
      await flush();
      let best = 0;
      let cut = false;
      for (const rate of rates) {
        if (rate * 2 > ceiling) {
          cut = true;
          break;
        }
        const rss = rssPeak();
        const memory = memorySplit(client);
        const rollup = rollupRuns(target === 'platform' ? platform.timeseries : null);
        const statements = rollupStatements(target === 'platform' ? platform.timeseries : null);
        // BENCH_CPU_PROF=<dir>: a CPU profile of this process (the platform; the generator runs in its own) during the
        // platform's step at BENCH_PROF_RATE dp/s (20,000 unless told).
        const profiled = target === 'platform' && rate === Number(process.env.BENCH_PROF_RATE ?? 20_000);
        const stopProfile = profiled ? await cpuProfile(`${name}-platform-${rate}`) : null;
        const cpu = process.cpuUsage();
        const run = await generator!.step(rate / vars, seconds, DRAIN_MS);
        const used = process.cpuUsage(cpu);
        await stopProfile?.();
        await flush();
        const rows = await stored(client, table, run, seconds);
        const step: CurveStep = {
          target,
          offered_dp_s: rate,
          acked_dp_s: Math.round((run.acked * vars) / seconds),
          ack_p50_ms: percentileMs(run.ack, 50),
          ack_p99_ms: percentileMs(run.ack, 99),
          query_p50_ms: percentileMs(rows.histogram, 50),
          query_p99_ms: percentileMs(rows.histogram, 99),
          lost: run.offered - rows.count,
          not_acked: run.unacked + run.failed + run.blocked + run.refused,
          send_lag_p99_ms: percentileMs(run.sendLag, 99),
          held: false,
          rss_mb: rss.stop(),
          ...(await memory.stop()),
          load_1m: Number(loadavg()[0]!.toFixed(1)),
          ...rollup.stop(),
          ...statements.stop(),
          cpu_us_per_msg: Math.round((used.user + used.system) / Math.max(1, run.offered)),
        };
        step.held = step.lost === 0 && step.not_acked === 0 && Math.max(step.ack_p99_ms, step.query_p99_ms) <= P99_LIMIT_MS;
        steps.push(step);
        log(JSON.stringify(step));
        if (!step.held) break;
        best = rate;
      }
      await generator!.disconnect();
      // What a failed step left in flight is stored before the next target runs on the same chDB.
      await flush();
      await drained(url, devices[0]!, vars);
      return { best, cut };
    };
    const ours = await curve('platform', bench.mqttUrl, 'telemetry', async () => {
      await platform.ingest!.flush();
      await platform.context.awaitProjections?.();
    });
    const theirs = await curve('bare', bare.url, bare.table, async () => {});

    const chart = path.resolve('bench-results', `${name}-${new Date().toISOString().replaceAll(':', '-').slice(0, 19)}.svg`);
    await mkdir(path.dirname(chart), { recursive: true });
    await writeFile(chart, curveChart(`${name}: ${DEVICES} devices, ${vars} dp/message, QoS 1, ${seconds} s a step`, steps, P99_LIMIT_MS));

    const heldAt = steps.find((s) => s.target === 'platform' && s.offered_dp_s === ours.best);
    const peakOf = (of: CurveStep[]) => Math.max(0, ...of.map((s) => s.rss_mb));
    /** A rate is reported only where the generator's ceiling is at least twice it; a curve cut there says so. */
    const reported = (held: { best: number; cut: boolean }) =>
      !held.cut
        ? { value: held.best, bound: null }
        : held.best === 0
          ? { value: null, bound: `not measured: the generator's ceiling (${ceiling} dp/s) is below twice the lowest step` }
          : { value: held.best, bound: `lower bound: held at every step up to half the generator's ceiling (${ceiling} dp/s)` };
    const platformFigure = reported(ours);
    const bareFigure = reported(theirs);
    return [
      ...steps.map((s) => ({
        bench: `${name}-step`,
        value: s.acked_dp_s,
        unit: 'dp/s',
        limit: s.offered_dp_s,
        limit_of: 'offered rate',
        ...s,
      })),
      {
        bench: 'gen-ceiling',
        value: ceiling,
        unit: 'dp/s',
        limit: 2 * Math.max(ours.best, theirs.best),
        limit_of: 'twice the highest rate it was used to hold (platform or bare pipeline)',
        processes: generator.processes,
        devices: DEVICES,
        vars,
        rss_mb: peakOf(steps),
      },
      {
        bench: name,
        value: platformFigure.value,
        unit: 'dp/s',
        limit: bareFigure.value,
        limit_of:
          'bare pipeline (Aedes hook, JSON.parse, group-commit RowBinary inserts into chDB, no rollups): highest rate held, same generator, same steps',
        ratio: platformFigure.value !== null && bareFigure.value ? Number((platformFigure.value / bareFigure.value).toFixed(3)) : null,
        p99_ms: heldAt ? Math.max(heldAt.ack_p99_ms, heldAt.query_p99_ms) : null,
        p50_ms: heldAt?.query_p50_ms ?? null,
        gen_ceiling: ceiling,
        ...(platformFigure.bound ? { note: platformFigure.bound } : {}),
        ...(bareFigure.bound ? { limit_note: bareFigure.bound } : {}),
        rss_mb: peakOf(steps.filter((s) => s.target === 'platform')),
        devices: DEVICES,
        seconds,
        chart: path.relative(process.cwd(), chart),
      },
    ];
  } finally {
    await generator?.close();
    await sink.close();
    await bare.close();
    await bench.stop();
  }
}
