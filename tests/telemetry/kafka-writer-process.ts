/**
 * The time-series writer alone, as its own process, for the crash test (kafka-writer-crash.int.test.ts): the
 * platform's `timeseries-writer` group on Kafka, inserting into chDB at DATA_PATH.
 * Usage: tsx tests/telemetry/kafka-writer-process.ts BROKERS DATA_PATH [CRASH_AFTER_INSERTS]
 * Prints `ready` once it has joined, then `inserted <token> <rows>` per batch stored. With CRASH_AFTER_INSERTS
 * it kills itself right after that many inserts, before the bus commits the last one's offsets.
 */
import { createKafkaBus } from '@iot/infra/bus/kafka.ts';
import { startTimeseriesWriter, dedupTokenOf, rowsOf } from '@iot/ingest/writer.ts';
import { ChdbTimeSeriesStore } from '@iot/infra/timeseries/chdb.ts';

const [brokers, path, crashAfter] = process.argv.slice(2);
const timeseries = new ChdbTimeSeriesStore({ path: path! });
await timeseries.migrate();
const bus = createKafkaBus({ brokers: brokers!.split(','), clientId: `writer-${process.pid}` });
let inserts = 0;
await startTimeseriesWriter({
  bus,
  timeseries,
  afterInsert: (batch) => {
    inserts += 1;
    process.stdout.write(`inserted ${dedupTokenOf(batch)} ${rowsOf(batch, () => undefined).length}\n`);
    if (crashAfter && inserts >= Number(crashAfter)) process.kill(process.pid, 'SIGKILL');
  },
});
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void (async () => {
    await bus.close();
    await timeseries.close();
    process.exit(0);
  })();
});
