import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChdbTimeSeriesStore } from './chdb.ts';
import { ClickHouseTimeSeriesStore, toDbRow } from './clickhouse.ts';
import type { TelemetryRow } from './port.ts';
import { telemetryTableDdl } from './schema.ts';

export interface InsertRate {
  ms: number;
  rowsPerSec: number;
}

export interface TelemetryInsertBench {
  rows: number;
  batchSize: number;
  /** `insertTelemetry` of the port, batch by batch (RowBinary through a file; the rollups are the job's, off this path). */
  port: InsertRate;
  /** The limit: the same rows through the same insert into a twin table without rollups (the fastest insert). */
  raw: InsertRate;
  /** For comparison: the same rows, already JSONEachRow text, as plain `INSERT ... FORMAT JSONEachRow`, no rollups. */
  json: InsertRate;
  /** The rollup job's one run over all the rows the port took (5-minute, hourly and per-second tables), and its peak memory. */
  rollupJob: InsertRate & { peakMb: number | null };
}

const variables = ['temp', 'humidity', 'voltage', 'current'];

function telemetry(count: number, devices: number): TelemetryRow[] {
  const start = Date.UTC(2026, 0, 1);
  return Array.from({ length: count }, (_, i) => ({
    tenantId: `tenant-${i % 3}`,
    deviceId: `device-${i % devices}`,
    productId: 'meter',
    variable: variables[i % variables.length]!,
    ts: new Date(start + i * 10),
    value: (i % 1000) / 10,
    text: null,
  }));
}

/**
 * Inserts `rows` telemetry rows through the chDB port and then, as the limit measured in the same
 * run, the same rows through a raw insert into a twin table. Uses its own chDB data directory
 * (a temp one unless `dataDir` is given), so no other chDB store may be open in the process.
 */
export async function benchTelemetryInsert(
  options: {
    rows?: number;
    batchSize?: number;
    devices?: number;
    dataDir?: string;
  } = {},
): Promise<TelemetryInsertBench> {
  const count = options.rows ?? 200_000;
  const batchSize = options.batchSize ?? 10_000;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'bench-timeseries-'));
  const suffix = Date.now().toString(36);
  const portTable = `bench_telemetry_port_${suffix}`;
  const rawTable = `bench_telemetry_raw_${suffix}`;
  const jsonTable = `bench_telemetry_json_${suffix}`;
  const store = new ChdbTimeSeriesStore({
    path: join(dataDir, 'chdb'),
    table: portTable,
    // Runs once, timed, after the inserts.
    rollups: { everyMs: 0, graceMs: 0 },
  });
  try {
    await store.migrate();
    const bare = new ClickHouseTimeSeriesStore(store.client, 'chdb', rawTable, false);
    await bare.migrate();
    await store.client.command({ query: telemetryTableDdl(jsonTable) });
    const rows = telemetry(count, options.devices ?? 1_000);
    const batches: TelemetryRow[][] = [];
    for (let i = 0; i < rows.length; i += batchSize) batches.push(rows.slice(i, i + batchSize));
    const bodies = batches.map((batch) => batch.map((row) => JSON.stringify(toDbRow(row))).join('\n'));

    // Warm the tables (first part, first parse) outside the timed runs.
    await store.insertTelemetry(rows.slice(0, 100));
    await bare.insertTelemetry(rows.slice(0, 100));
    await store.client.command({
      query: `INSERT INTO ${jsonTable} FORMAT JSONEachRow\n${bodies[0]!.split('\n', 100).join('\n')}`,
    });

    // Interleaved batch by batch, so background merges and machine noise weigh on all alike.
    let portMs = 0;
    let rawMs = 0;
    let jsonMs = 0;
    for (const [i, batch] of batches.entries()) {
      portMs += await elapsed(() => store.insertTelemetry(batch));
      rawMs += await elapsed(() => bare.insertTelemetry(batch));
      jsonMs += await elapsed(() =>
        store.client.command({
          query: `INSERT INTO ${jsonTable} FORMAT JSONEachRow\n${bodies[i]}`,
        }),
      );
    }
    const port = rate(count, portMs);
    const raw = rate(count, rawMs);
    const json = rate(count, jsonMs);
    const rollupMs = await elapsed(() => store.flushRollups());
    const rollupJob = { ...rate(count, rollupMs), peakMb: await rollupPeakMb(store, portTable) };

    for (const suffix of ['_5m_fold', '_1h_fold', '', '_5m', '_1h', '_counts', '_rolled', '_rollup_feed', '_stat'])
      await store.client.command({ query: `DROP TABLE IF EXISTS ${portTable}${suffix}` });
    for (const table of [rawTable, `${rawTable}_stat`, jsonTable]) await store.client.command({ query: `DROP TABLE IF EXISTS ${table}` });
    return { rows: count, batchSize, port, raw, json, rollupJob };
  } finally {
    await store.close();
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The largest memory one of the job's inserts took, from the query log (null where the engine keeps none). */
async function rollupPeakMb(store: ClickHouseTimeSeriesStore, table: string): Promise<number | null> {
  try {
    await store.client.command({ query: 'SYSTEM FLUSH LOGS' });
    const result = await store.client.query({
      query: `SELECT max(memory_usage) AS peak FROM system.query_log
              WHERE type = 'QueryFinish' AND query LIKE {like:String}`,
      query_params: { like: `%'rollup:${table}%` },
      format: 'JSONEachRow',
    });
    const [row] = await result.json<{ peak: string | number | null }>();
    return row?.peak == null || Number(row.peak) === 0 ? null : Math.round(Number(row.peak) / 2 ** 20);
  } catch {
    return null;
  }
}

async function elapsed(work: () => Promise<unknown>): Promise<number> {
  const began = performance.now();
  await work();
  return performance.now() - began;
}

const rate = (rows: number, ms: number): InsertRate => ({
  ms: Math.round(ms),
  rowsPerSec: Math.round((rows * 1000) / ms),
});
