import { routes } from '@iot/contracts';
import { urlOf } from '@iot/contracts/http/route.ts';
import type { ClickHouseTimeSeriesStore } from '@iot/infra/timeseries/clickhouse.ts';
import { computeReport } from '@iot/projections/report/compute.ts';
import { benchTenantApi, startBenchPlatform } from './bare.ts';
import { rssPeak, type Figure } from './figure.ts';

const DEVICES = 100;
const VARIABLES = ['v1', 'v2', 'v3', 'v4', 'v5'];
const DAY_MS = 86_400_000;

/**
 * `report-export` (issue 20): a report of one month, 100 devices × 5 variables at the 15-minute cycle (avg, in
 * Asia/Shanghai), downloaded as XLSX through the route: seconds and the peak RSS of the process that serves it.
 * The samples: one per device and variable every `BENCH_REPORT_STEP_S` seconds (300: 4.3 million rows), made inside
 * chDB. The limit: the same five aggregates asked of the store directly (no HTTP, no join, no XLSX).
 */
export async function benchReportExport(): Promise<Figure[]> {
  const stepS = Number(process.env.BENCH_REPORT_STEP_S ?? 300);
  const bench = await startBenchPlatform('report');
  const { platform } = bench;
  try {
    const { base, token, call } = await benchTenantApi(platform);
    const product = await call('product.create', { body: { name: 'bench', code: 'BENCH-REPORT', type: 'direct' } });
    for (const identifier of VARIABLES)
      await call('product.defineFunction', {
        body: { productId: product.id, function: { type: 'property', name: identifier, identifier, dataType: { type: 'double' } } },
      });
    await call('product.publish', { body: { id: product.id } });
    const ids: string[] = [];
    for (let i = 0; i < DEVICES; i++)
      ids.push((await call('device.create', { body: { sn: `RPT-${i}`, name: `report ${i}`, productId: product.id } })).id);
    await platform.context.awaitProjections?.();
    const say = (what: string) => process.stderr.write(`report-export: ${what}\n`);
    say(`${DEVICES} devices made`);
    const store = platform.timeseries as ClickHouseTimeSeriesStore;
    const from = Date.UTC(2026, 9, 1) - 8 * 3_600_000;
    const to = from + 31 * DAY_MS;
    const perSeries = Math.floor((to - from) / (stepS * 1000));
    const series = DEVICES * VARIABLES.length;
    const rows = perSeries * series;
    // In chunks, each rolled up once made: chDB's memory is bounded (1 GB).
    const chunk = 250_000;
    for (let start = 0; start < rows; start += chunk) {
      await store.client.command({
        query: `INSERT INTO telemetry (tenant_id, device_id, product_id, variable, ts, value)
          SELECT 'bench', arrayElement({ids:Array(String)}, toUInt32(number % ${DEVICES}) + 1), {productId:String},
                 arrayElement({variables:Array(String)}, toUInt32(intDiv(number, ${DEVICES}) % ${VARIABLES.length}) + 1),
                 fromUnixTimestamp64Milli(toInt64(${from} + intDiv(number, ${series}) * ${stepS * 1000}), 'UTC'),
                 round(20 + 10 * sin(number / 7919), 2)
          FROM numbers(${start}, ${Math.min(chunk, rows - start)})`,
        query_params: { ids, productId: product.id, variables: VARIABLES },
      });
      await store.flushRollups();
    }
    say(`${rows} samples loaded`);
    const query = {
      deviceIds: ids,
      variables: VARIABLES,
      fn: 'avg' as const,
      cycle: '15m' as const,
      timeZone: 'Asia/Shanghai',
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
    };

    // First, before anything else of the bench holds memory: the peak RSS is the process's, chDB's included.
    const rssBefore = Math.round(process.memoryUsage.rss() / 2 ** 20);
    const rss = rssPeak();
    const started = performance.now();
    const response = await fetch(base + urlOf(routes['report.export'], { ...query, format: 'xlsx' }), {
      headers: { authentication: token },
    });
    if (!response.ok) throw new Error(`report export answered ${response.status}: ${await response.text()}`);
    let bytes = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
    const seconds = (performance.now() - started) / 1000;
    const peak = rss.stop();
    say(`exported: ${bytes} bytes in ${seconds.toFixed(2)} s, peak RSS ${peak} MB`);
    const limitStarted = performance.now();
    let points = 0;
    for (const variable of VARIABLES)
      points += (
        await store.aggregate({
          tenantId: 'bench',
          deviceIds: ids,
          variable,
          from: new Date(from),
          to: new Date(to),
          bucket: '15m',
          fn: 'avg',
          timeZone: 'Asia/Shanghai',
        })
      ).length;
    const limitSeconds = (performance.now() - limitStarted) / 1000;
    say(`limit measured: ${limitSeconds.toFixed(2)} s`);

    // Where the export's time goes: the report computed (the store's aggregates joined into rows), then the file.
    const computeStarted = performance.now();
    const computed = await computeReport(
      { db: platform.context.db, timeseries: store },
      { tenantId: 'bench', stationId: null },
      { ...query, from: new Date(from), to: new Date(to) },
    );
    const computeSeconds = (performance.now() - computeStarted) / 1000;
    say(`report computed: ${computed.rows.length} rows in ${computeSeconds.toFixed(2)} s`);

    const expected = DEVICES * 31 * 96;
    if (points !== expected * VARIABLES.length) throw new Error(`the store answered ${points} points, not ${expected * VARIABLES.length}`);
    return [
      {
        bench: 'report-export',
        value: Math.round(seconds * 100) / 100,
        unit: 's',
        limit: Math.round(limitSeconds * 100) / 100,
        limit_of: 'the same five aggregates asked of the store directly (no HTTP, no join, no XLSX)',
        rss_mb: peak,
        rss_before_mb: rssBefore,
        report_rows: expected,
        compute_s: Math.round(computeSeconds * 100) / 100,
        xlsx_mb: Math.round((bytes / 2 ** 20) * 10) / 10,
        sample_rows: rows,
      },
    ];
  } finally {
    await bench.stop();
  }
}
