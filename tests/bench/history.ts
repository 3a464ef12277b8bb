import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ChdbTimeSeriesStore } from '@iot/infra/timeseries/chdb.ts';
import { ClickHouseTimeSeriesStore } from '@iot/infra/timeseries/clickhouse.ts';
import type { AggregatePoint } from '@iot/contracts/ports/timeseries.ts';
import { routes } from '@iot/contracts';
import { urlOf } from '@iot/contracts/http/route.ts';
import { waitFor } from '../harness/process.ts';
import { benchTenantApi, startBenchPlatform } from './bare.ts';
import type { Figure } from './figure.ts';

const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);

/**
 * `export-csv` (issue 11): one million rows of one device's history streamed to an HTTP client as CSV; rows/s and
 * the server's RSS growth during the export. The limit: the same rows read page by page from the store, no HTTP, no CSV.
 */
export async function benchExport(): Promise<Figure[]> {
  const bench = await startBenchPlatform('export');
  const { platform } = bench;
  try {
    const { base, token, call } = await benchTenantApi(platform);
    const product = await call('product.create', { body: { name: 'bench', code: 'BENCH-EXPORT', type: 'direct' } });
    await call('product.defineFunction', {
      body: {
        productId: product.id,
        function: { type: 'property', name: '温度', identifier: 'temperature', dataType: { type: 'double', unit: '°C' } },
      },
    });
    await call('product.publish', { body: { id: product.id } });
    const device = await call('device.create', { body: { sn: 'EXPORT-1', name: 'export', productId: product.id } });
    await platform.context.awaitProjections?.();
    const ts = platform.timeseries!;
    const start = Date.UTC(2026, 9, 1);
    for (let i = 0; i < ROWS; i += 100_000)
      await ts.insertTelemetry(
        Array.from({ length: Math.min(100_000, ROWS - i) }, (_, k) => ({
          tenantId: 'bench',
          deviceId: device.id,
          productId: product.id,
          variable: 'temperature',
          ts: new Date(start + (i + k) * 1000),
          value: Math.round(Math.sin((i + k) / 600) * 2000) / 100,
          text: null,
        })),
      );
    const from = new Date(start).toISOString();
    const to = new Date(start + ROWS * 1000 + 1000).toISOString();

    const limitStarted = performance.now();
    let read = 0;
    for (let offset = 0; ; offset += 10_000) {
      const page = await ts.queryHistory({
        tenantId: 'bench',
        deviceId: device.id,
        variable: 'temperature',
        from: new Date(from),
        to: new Date(to),
        limit: 10_000,
        offset,
      });
      read += page.rows.length;
      if (page.rows.length < 10_000) break;
    }
    const limitSeconds = (performance.now() - limitStarted) / 1000;

    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
    const started = performance.now();
    const response = await fetch(base + urlOf(routes['telemetry.export'], { id: device.id, variables: 'temperature', from, to }), {
      headers: { authentication: token },
    });
    let lines = -1;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) for (const byte of chunk) if (byte === 10) lines += 1;
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    if (lines !== ROWS || read !== ROWS) throw new Error(`exported ${lines} and read ${read} of ${ROWS} rows`);
    return [
      {
        bench: 'export-csv',
        value: Math.round(ROWS / seconds),
        unit: 'rows/s',
        limit: Math.round(ROWS / limitSeconds),
        limit_of: 'the same rows read page by page from the store (no HTTP, no CSV)',
        rss_growth_mb: Math.round((peak - rss0) / 2 ** 20),
        rows: ROWS,
        goal_rss_growth_mb: 100,
      },
    ];
  } finally {
    await bench.stop();
  }
}

const DAY_MS = 86_400_000;

/**
 * `history-30d` (issue 11): the day chart's question over a month, 30 days of one variable of one device in
 * 15-minute buckets (avg, in Asia/Shanghai), from a table of `BENCH_HISTORY_ROWS` (100 million) samples over 1,000
 * devices; p95 of 100 queries, each for another device. The limit: the same answer from the raw samples, in the
 * same run, interleaved query by query. The rows are made inside chDB (`INSERT … SELECT FROM numbers()`), not
 * through the pipeline, 10 million at a time in time order, and the rollup job folds each insert once made (measured
 * at 20M rows, when views folded each insert: a third quicker than folding them all at once afterwards). The data dir is removed at the end.
 */
export async function benchHistory30d(): Promise<Figure[]> {
  const rows = Number(process.env.BENCH_HISTORY_ROWS ?? 100_000_000);
  const queries = Number(process.env.BENCH_HISTORY_QUERIES ?? 100);
  const devices = 1_000;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'dc-bench-history-'));
  const store = new ChdbTimeSeriesStore({ path: path.join(dir, 'chdb') });
  const raw = new ClickHouseTimeSeriesStore(store.client, 'chdb', 'telemetry', false);
  try {
    await store.migrate();
    const from = Date.UTC(2026, 9, 1);
    const to = from + 30 * DAY_MS;
    // Sample i: device i mod 1000, the (i div 1000)-th of its samples, evenly over the 30 days.
    const stepMs = Math.floor((30 * DAY_MS) / Math.ceil(rows / devices));
    const loadStarted = performance.now();
    const chunk = 10_000_000;
    for (let start = 0; start < rows; start += chunk) {
      await store.client.command({
        query: `INSERT INTO telemetry (tenant_id, device_id, product_id, variable, ts, value)
          SELECT 'bench', concat('dev-', toString(number % ${devices})), 'meter', 'temperature',
                 fromUnixTimestamp64Milli(toInt64(${from} + intDiv(number, ${devices}) * ${stepMs}), 'UTC'),
                 round(20 + 10 * sin(number / 7919) + (number % 13) / 10, 2)
          FROM numbers(${start}, ${Math.min(chunk, rows - start)})`,
      });
      // Rolled chunk by chunk, as the rollup job folds a running deployment's samples every few seconds.
      await store.flushRollups();
    }
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    // A running deployment's background merges keep the small rollups in few parts, and have long merged the raw
    // samples of past days: merge the rollups now, and give the raw table's merges up to a minute to settle.
    const settleStarted = performance.now();
    for (const table of ['telemetry_5m', 'telemetry_1h']) await store.client.command({ query: `OPTIMIZE TABLE ${table} FINAL` });
    const sql = async <Row>(query: string) => (await store.client.query({ query, format: 'JSONEachRow' })).json<Row>();
    const merging = async () => Number((await sql<{ n: string }>('SELECT count() AS n FROM system.merges'))[0]!.n);
    // Past the minute it is measured anyway: the parts counts in its line show how far the merges got.
    await waitFor('no merge running', async () => (await merging()) === 0, 60_000, 200).catch(() => undefined);
    const parts = Object.fromEntries(
      (
        await sql<{ table: string; n: string }>(
          `SELECT table, count() AS n FROM system.parts WHERE active AND database = currentDatabase() GROUP BY table`,
        )
      ).map((r) => [`parts_${r.table}`, Number(r.n)]),
    );
    const settleSeconds = (performance.now() - settleStarted) / 1000;

    const rollups = store as ClickHouseTimeSeriesStore;
    const ask = (sut: ClickHouseTimeSeriesStore, device: number) =>
      sut.aggregate({
        tenantId: 'bench',
        deviceIds: [`dev-${device}`],
        variable: 'temperature',
        from: new Date(from),
        to: new Date(to),
        bucket: '15m',
        fn: 'avg',
        timeZone: 'Asia/Shanghai',
      });
    const timed = async (sut: ClickHouseTimeSeriesStore, device: number): Promise<[number, AggregatePoint[]]> => {
      const began = performance.now();
      const points = await ask(sut, device);
      return [performance.now() - began, points];
    };
    await ask(rollups, 0);
    await ask(raw, 0);
    const rolledMs: number[] = [];
    const rawMs: number[] = [];
    for (let q = 0; q < queries; q++) {
      const device = (q * 397) % devices;
      const [a, rolled] = await timed(rollups, device);
      const [b, scanned] = await timed(raw, device);
      rolledMs.push(a);
      rawMs.push(b);
      if (rolled.length !== 2880 || !sameSeries(rolled, scanned))
        throw new Error(`dev-${device}: the rollups answered ${rolled.length} buckets unlike the raw samples' ${scanned.length}`);
    }
    const p95 = (ms: number[]) => Number([...ms].sort((x, y) => x - y)[Math.ceil(ms.length * 0.95) - 1]!.toFixed(1));
    return [
      {
        bench: 'history-30d',
        value: p95(rolledMs),
        unit: 'ms (p95)',
        limit: p95(rawMs),
        limit_of: 'the same 2,880 buckets folded from the raw samples, same run, interleaved',
        speedup: Number((p95(rawMs) / p95(rolledMs)).toFixed(1)),
        goal_ms: 100,
        rows,
        devices,
        queries,
        load_s: Math.round(loadSeconds),
        settle_s: Math.round(settleSeconds),
        ...parts,
      },
    ];
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Same buckets, values equal but for the last bits of a float sum folded in another order. */
function sameSeries(a: AggregatePoint[], b: AggregatePoint[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (p, i) =>
        p.bucket.getTime() === b[i]!.bucket.getTime() &&
        (p.value === b[i]!.value || Math.abs(p.value! - b[i]!.value!) <= 1e-9 * Math.max(1, Math.abs(p.value!))),
    )
  );
}
