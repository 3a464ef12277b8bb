/**
 * `npm run bench` runs every benchmark; `npm run bench -- NAME` runs one. Each prints JSON lines:
 * {"bench","value","unit","limit","limit_of","rss_mb"}, the limit measured in the same run on the same machine, and the
 * peak resident memory of this process (which runs the platform) while it was measured.
 * Benchmarks stop by themselves and touch only loopback addresses.
 */
import { figureLine, rssPeak, type Figure } from './figure.ts';

/**
 * Each bench's module is loaded when it runs, not all at start: the process that runs the platform then holds only
 * what its own bench needs (the Kafka, MQTT and histogram clients of the others are not in its RSS).
 */
const benches: Record<string, () => Promise<Figure[]>> = {
  commands: async () => (await import('./commands.ts')).benchCommands(Number(process.env.BENCH_SECONDS ?? 10)),
  'api-read': async () => (await import('./api-read.ts')).benchApiRead(Number(process.env.BENCH_SECONDS ?? 10)),
  telemetry: async () => {
    const { benchTelemetryInsert } = await import('@iot/infra/timeseries/bench.ts');
    const result = await benchTelemetryInsert({ rows: 200_000, batchSize: 10_000 });
    return [
      {
        bench: 'telemetry_insert',
        value: Math.round(result.port.rowsPerSec),
        unit: 'rows/s',
        limit: Math.round(result.raw.rowsPerSec),
        limit_of: 'the same insert (RowBinary through a file) into a table without rollups',
        json_rows_per_s: Math.round(result.json.rowsPerSec),
      },
      {
        bench: 'rollup_job',
        value: result.rollupJob.rowsPerSec,
        unit: 'rows/s',
        limit: Math.round(result.port.rowsPerSec),
        limit_of: 'the insert rate of the same rows (one run of the job folded all of them into both rollups and the per-second counts)',
        run_ms: result.rollupJob.ms,
        rows: result.rows,
        peak_query_mb: result.rollupJob.peakMb,
      },
    ];
  },
  devices: async () => (await import('./devices.ts')).benchDevices(),
  ingest: async () => (await import('./ingest.ts')).benchIngest(),
  'ingest-kafka': async () => (await import('./ingest-kafka.ts')).benchIngestKafka(),
  'kafka-clients': async () => (await import('./ingest-kafka.ts')).benchKafkaClients(),
  'ingest-mosquitto': async () => (await import('./ingest-mosquitto.ts')).benchIngestMosquitto(),
  'export-csv': async () => (await import('./history.ts')).benchExport(),
  'history-30d': async () => (await import('./history.ts')).benchHistory30d(),
  alarms: async () => (await import('./alarms.ts')).benchAlarms(),
  'ingest-curve': async () => (await import('./ingest-curve.ts')).benchIngestCurve(3),
  'ingest-curve-10dp': async () => (await import('./ingest-curve.ts')).benchIngestCurve(10),
  'ingest-http': async () => (await import('./ingest-http.ts')).benchIngestHttp(),
  'ingest-cpu': async () => (await import('./ingest-cpu.ts')).benchIngestCpu(),
  dashboard: async () => (await import('./dashboard.ts')).benchDashboard(),
  'report-export': async () => (await import('./report.ts')).benchReportExport(),
  'rule-chain': async () => (await import('./rule-chain.ts')).benchRuleChain(),
  'forward-http': async () => (await import('./forward-http.ts')).benchForwardHttp(),
  'stat-task': async () => (await import('./stat-task.ts')).benchStatTask(),
  'ota-bookkeeping': async () => (await import('./ota.ts')).benchOtaBookkeeping(),
  'ota-rollout': async () => (await import('./ota-rollout.ts')).benchOtaRollout(),
};
const aliases: Record<string, string> = {
  'device-import': 'devices',
  'device-list': 'devices',
  'device-as-of': 'devices',
  'ingest-3dp': 'ingest',
  'ingest-10dp': 'ingest',
  'alarm-overhead': 'alarms',
  'alarm-latency': 'alarms',
  'alarm-storm': 'alarms',
};
for (const [alias, bench] of Object.entries(aliases))
  benches[alias] = async () => (await benches[bench]!()).filter((figure) => figure.bench === alias);

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = wanted.filter((name) => !benches[name]);
if (unknown.length) {
  process.stderr.write(`unknown bench ${unknown.join(', ')}; known: ${Object.keys(benches).join(', ')}\n`);
  process.exit(2);
}
for (const name of wanted.length ? wanted : Object.keys(benches).filter((b) => !aliases[b])) {
  const rss = rssPeak();
  const figures = await benches[name]!();
  const peak = rss.stop();
  for (const figure of figures) process.stdout.write(`${figureLine(figure, peak)}\n`);
}
process.exit(0);
