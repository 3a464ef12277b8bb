/**
 * Times rollup job runs at a given backlog (issue 23): `npx tsx infra/src/timeseries/rollup-measure.ts [rows] [repeats]`.
 * Inserts `rows` samples (1,000 devices x 3 variables, one second apart per device) through the port, then times one
 * flush of the job over them (every window it takes); repeated `repeats` times, each on fresh rows. Prints one JSON line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChdbTimeSeriesStore } from './chdb.ts';
import type { TelemetryRow } from './port.ts';

const rows = Number(process.argv[2] ?? 200_000);
const repeats = Number(process.argv[3] ?? 3);
const variables = ['temp', 'humidity', 'voltage'];
const dataDir = mkdtempSync(join(tmpdir(), 'rollup-measure-'));
const store = new ChdbTimeSeriesStore({ path: join(dataDir, 'chdb'), rollups: { everyMs: 0, graceMs: 0 } });
try {
  await store.migrate();
  const start = Date.now() - 3_600_000;
  const runs: number[] = [];
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
    const began = performance.now();
    await store.flushRollups();
    runs.push(Math.round(performance.now() - began));
  }
  const [counted] = await (
    await store.client.query({ query: 'SELECT sum(cnt_s) AS n FROM telemetry_1h', format: 'JSONEachRow' })
  ).json<{ n: string }>();
  console.log(
    JSON.stringify({ rows, runs_ms: runs, job_runs: store.rollupJob?.runs, rolled_1h: Number(counted?.n), load_1m: loadavg()[0] }),
  );
} finally {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
}
