/**
 * `npm run bench` runs every benchmark; `npm run bench -- NAME` runs one. Each prints JSON lines:
 * {"bench","value","unit","limit","limit_of","rss_mb"}, the limit measured in the same run on the same machine, and the
 * peak resident memory of this process (which runs the platform) while it was measured.
 * Benchmarks stop by themselves and touch only loopback addresses.
 */
import { benchTelemetryInsert } from '@iot/infra/timeseries/bench.ts';
import { benchApiRead } from './api-read.ts';
import { benchCommands } from './commands.ts';
import { benchDevices } from './devices.ts';
import { benchIngest } from './ingest.ts';
import { benchIngestKafka, benchKafkaClients } from './ingest-kafka.ts';
import { benchIngestMosquitto } from './ingest-mosquitto.ts';
import { benchExport, benchHistory30d } from './history.ts';
import { benchAlarms } from './alarms.ts';
import { benchIngestCurve } from './ingest-curve.ts';
import { benchIngestCpu } from './ingest-cpu.ts';
import { benchIngestHttp } from './ingest-http.ts';
import { benchReportExport } from './report.ts';
import { figureLine, rssPeak, type Figure } from './figure.ts';
import { benchDashboard } from './dashboard.ts';
import { benchRuleChain } from './rule-chain.ts';
import { benchForwardHttp } from './forward-http.ts';
import { benchStatTask } from './stat-task.ts';
import { benchOtaBookkeeping } from './ota.ts';
import { benchOtaRollout } from './ota-rollout.ts';

const benches: Record<string, () => Promise<Figure[]>> = {
  commands: () => benchCommands(Number(process.env.BENCH_SECONDS ?? 10)),
  'api-read': () => benchApiRead(Number(process.env.BENCH_SECONDS ?? 10)),
  telemetry: async () => {
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
};

benches.devices = benchDevices;
benches.ingest = benchIngest;
Object.assign(benches, { 'ingest-kafka': benchIngestKafka, 'kafka-clients': benchKafkaClients });
benches['ingest-mosquitto'] = benchIngestMosquitto;
benches['export-csv'] = benchExport;
benches['history-30d'] = benchHistory30d;
benches.alarms = benchAlarms;
benches['ingest-curve'] = () => benchIngestCurve(3);
benches['ingest-curve-10dp'] = () => benchIngestCurve(10);
benches['ingest-http'] = benchIngestHttp;
benches['ingest-cpu'] = benchIngestCpu;
benches.dashboard = benchDashboard;
benches['report-export'] = benchReportExport;
benches['rule-chain'] = () => benchRuleChain();
benches['forward-http'] = () => benchForwardHttp();
benches['stat-task'] = benchStatTask;
benches['ota-bookkeeping'] = benchOtaBookkeeping;
benches['ota-rollout'] = benchOtaRollout;
/** The three device figures come from one run (the list and the as-of read the imported fleet): each name runs it and keeps its own. */
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
