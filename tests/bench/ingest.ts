import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ClickHouseTimeSeriesStore } from '@iot/infra/timeseries/clickhouse.ts';
import { benchProduct, benchTenantApi, countRows, registerDevices, startBarePipeline, startBenchPlatform } from './bare.ts';
import type { Figure } from './figure.ts';

const run = promisify(execFile);
const DEVICES = 100;
const WINDOW = Number(process.env.BENCH_WINDOW ?? 16);

interface Load {
  sent: number;
  acked: number;
  failed: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
}
/** Runs the generator; each device publishes on `devices/<sn>/<suffix>`. */
export async function load(url: string, credentials: string, vars: number, seconds: number, suffix = 'telemetry'): Promise<Load> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', 'tests/bench/mqtt-load.ts', url, credentials, String(vars), String(seconds), String(WINDOW), suffix],
    {
      maxBuffer: 1 << 20,
    },
  );
  return JSON.parse(stdout) as Load;
}

/**
 * `ingest-3dp` and `ingest-10dp` (issue 11): 100 devices over MQTT at QoS 1, each keeping a window of publishes
 * in flight (saturation rather than a stepped offered rate), through the whole platform on its embedded
 * defaults: authentication, validation against the thing model, presence, chDB. The limit is the bare pipeline in
 * the same run with the same generator: a second Aedes whose hook parses the JSON and batches rows into chDB with
 * the fastest insert there is (the store's own: RowBinary written to /dev/shm, `INSERT … SELECT FROM file()`, no
 * rollups), nothing else.
 */
export async function benchIngest(): Promise<Figure[]> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 15);
  const bench = await startBenchPlatform('ingest');
  const { dir, platform } = bench;
  const figures: Figure[] = [];
  const bare = await startBarePipeline(platform);
  try {
    const { call } = await benchTenantApi(platform);
    const productId = await benchProduct(call, 'BENCH-INGEST', 10);
    const devices = await registerDevices(call, productId, 'INGEST', DEVICES);
    await platform.context.awaitProjections?.();
    const credentials = path.join(dir, 'devices.csv');
    await writeFile(credentials, devices.map((d) => `${d.sn},${d.secret}`).join('\n'));

    const store = platform.timeseries as ClickHouseTimeSeriesStore;
    const count = (table: string) => countRows(store.client, table);

    for (const vars of [3, 10]) {
      const rss0 = process.memoryUsage().rss;
      let peak = rss0;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
      const before = await count('telemetry');
      const product = await load(bench.mqttUrl, credentials, vars, seconds);
      clearInterval(sampler);
      await platform.ingest!.flush();
      const stored = (await count('telemetry')) - before;
      const bareBefore = await count('telemetry_bare');
      const limit = await load(bare.url, credentials, vars, seconds);
      const bareStored = (await count('telemetry_bare')) - bareBefore;
      const dps = (product.acked * vars) / product.seconds;
      const limitDps = (limit.acked * vars) / limit.seconds;
      figures.push({
        bench: `ingest-${vars}dp`,
        value: Math.round(dps),
        unit: 'dp/s',
        limit: Math.round(limitDps),
        limit_of: 'bare pipeline (Aedes hook, JSON.parse, batch, RowBinary file insert into chDB, no rollups), same generator',
        ratio: Number((dps / limitDps).toFixed(3)),
        p99_ms: product.p99Ms,
        p50_ms: product.p50Ms,
        limit_p99_ms: limit.p99Ms,
        rss_mb: Math.round(peak / 2 ** 20),
        // Acknowledged values that are not in the store: must be 0.
        lost: product.acked * vars - stored,
        limit_lost: limit.acked * vars - bareStored,
        devices: DEVICES,
        seconds,
      });
    }
    return figures;
  } finally {
    await bare.close();
    await bench.stop();
  }
}
