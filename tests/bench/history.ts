import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '@iot/infra/config.ts';
import { startEmbeddedPostgres } from '@iot/infra/postgres/embedded.ts';
import { seedDemoTenant, startPlatform } from '@iot/infra/platform.ts';
import { freePort } from '../harness/free-port.ts';
import type { Figure } from './figure.ts';

const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);

/**
 * `export-csv` (issue 11): one million rows of one device's history streamed to an HTTP client as CSV; rows/s and
 * the server's RSS growth during the export. The limit: the same rows read page by page from the store, no HTTP, no CSV.
 */
export async function benchExport(): Promise<Figure[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'dc-bench-export-'));
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), database: 'postgres' });
  const platform = await startPlatform(
    loadConfig({
      DATABASE_URL: pg.url,
      DATA_DIR: dir,
      ADMIN_PASSWORD: 'Bench#adm1',
      LOG_LEVEL: 'silent',
      MQTT_PORT: String(await freePort()),
    }),
    { port: await freePort(), staticDir: null, seedDemo: false, logger: pino({ level: 'silent' }) },
  );
  try {
    await seedDemoTenant(platform.context, { id: 'bench', name: 'benchco', adminUsername: 'benchco', adminPassword: 'Bench#pw1' });
    const base = platform.url!.replace('localhost', '127.0.0.1');
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ account: 'benchco', password: 'Bench#pw1', agreement: true }),
    });
    const token = ((await login.json()) as { data: { token: string } }).data.token;
    const call = async (method: string, url: string, body: unknown) => {
      const r = await fetch(`${base}${url}`, {
        method,
        headers: { authentication: token, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return ((await r.json()) as { data: any }).data;
    };
    const product = await call('POST', '/api/iot/product', { name: 'bench', code: 'BENCH-EXPORT', type: 'direct' });
    await call('PUT', '/api/iot/product/function', {
      productId: product.id,
      function: { type: 'property', name: '温度', identifier: 'temperature', dataType: { type: 'double', unit: '°C' } },
    });
    await call('POST', '/api/iot/product/publish', { id: product.id });
    const device = await call('POST', '/api/iot/device', { sn: 'EXPORT-1', name: 'export', productId: product.id });
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
    const response = await fetch(`${base}/api/iot/device/history/export?id=${device.id}&variables=temperature&from=${from}&to=${to}`, {
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
    await platform.stop();
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
