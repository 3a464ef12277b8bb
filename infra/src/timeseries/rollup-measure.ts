/**
 * Times the rollup job at a given backlog (issue 23): `npx tsx infra/src/timeseries/rollup-measure.ts [rows] [repeats]`.
 * Inserts `rows` samples (1,000 devices x 3 variables, one second apart per device) through the port, then folds them
 * twice, in alternating order: the job's run (one scan of the raw rows, fed to both rollups by one insert), and the three INSERT ... SELECT
 * over the raw rows that each run made before (one scan per rollup and one for the counts) into twin tables, whose
 * figures must match the job's. Repeated `repeats` times on fresh rows; prints one JSON line with both times per repeat.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChdbTimeSeriesStore } from './chdb.ts';
import type { TelemetryRow } from './port.ts';
import { rollups, rollupSelect, rollupTableDdl, SAMPLE_COUNTS_DAYS, sampleCountsDdl, sampleCountsSelect } from './schema.ts';

const rows = Number(process.argv[2] ?? 200_000);
const repeats = Number(process.argv[3] ?? 3);
const variables = ['temp', 'humidity', 'voltage'];
const dataDir = mkdtempSync(join(tmpdir(), 'rollup-measure-'));
const store = new ChdbTimeSeriesStore({ path: join(dataDir, 'chdb'), rollups: { everyMs: 0, graceMs: 0 } });
const one = async <Row>(query: string): Promise<Row> =>
  (await (await store.client.query({ query, format: 'JSONEachRow' })).json<Row>())[0]!;
const elapsed = async (work: () => Promise<unknown>): Promise<number> => {
  const began = performance.now();
  await work();
  return Math.round(performance.now() - began);
};
try {
  await store.migrate();
  // The twins that the former run (three scans) fills: tables named like the job's, of a table `old` that reads `telemetry`.
  for (const rollup of rollups) await store.client.command({ query: rollupTableDdl('old', rollup) });
  await store.client.command({ query: sampleCountsDdl('old') });
  const start = Date.now() - 3_600_000;
  const job: number[] = [];
  const before: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const batch: TelemetryRow[] = Array.from({ length: rows }, (_, i) => ({
      tenantId: `tenant-${i % 3}`,
      deviceId: `device-${Math.floor(i / 3) % 1000}`,
      variable: variables[i % 3]!,
      ts: new Date(start + r * 600_000 + Math.floor(i / 3000) * 1000),
      value: i % 100,
      text: null,
    }));
    for (let i = 0; i < batch.length; i += 50_000) await store.insertTelemetry(batch.slice(i, i + 50_000));
    const { wm, now } = await one<{ wm: string; now: string }>(
      `SELECT toUnixTimestamp64Milli(max(wm)) AS wm, toUnixTimestamp64Milli(now64(3)) AS now FROM telemetry_rolled`,
    );
    const received = `received_at >= fromUnixTimestamp64Milli(${wm}, 'UTC') AND received_at < fromUnixTimestamp64Milli(${now}, 'UTC')`;
    const former = async () => {
      for (const rollup of rollups)
        await store.client.command({ query: `INSERT INTO old_${rollup.suffix} ${rollupSelect('telemetry', rollup, received)}` });
      await store.client.command({
        query: `INSERT INTO old_counts ${sampleCountsSelect('telemetry', `WHERE ${received} AND ts >= now() - toIntervalDay(${SAMPLE_COUNTS_DAYS})`)}`,
      });
    };
    if (r % 2 === 0) {
      job.push(await elapsed(() => store.flushRollups()));
      before.push(await elapsed(former));
    } else {
      before.push(await elapsed(former));
      job.push(await elapsed(() => store.flushRollups()));
    }
  }
  const figures = async (prefix: string) => ({
    ...(await one<Record<string, unknown>>(`SELECT sum(cnt_s) AS n5m, sum(sum_s) AS s5m FROM ${prefix}_5m`)),
    ...(await one<Record<string, unknown>>(
      `SELECT sum(cnt_s) AS n1h, sum(sum_s) AS s1h, sum(finalizeAggregation(last_s)) AS last1h FROM ${prefix}_1h`,
    )),
    ...(await one<Record<string, unknown>>(`SELECT sum(n) AS counts FROM ${prefix}_counts`)),
  });
  const [now, then] = [await figures('telemetry'), await figures('old')];
  console.log(
    JSON.stringify({
      rows,
      job_run_ms: job,
      three_scans_ms: before,
      same_figures: JSON.stringify(now) === JSON.stringify(then),
      figures: now,
      job_statements_ms: Object.fromEntries(
        [...(store.rollupJob?.statements ?? [])].map(([what, stat]) => [what, Math.round(stat.totalMs / stat.count)]),
      ),
      load_1m: loadavg()[0],
    }),
  );
} finally {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
}
