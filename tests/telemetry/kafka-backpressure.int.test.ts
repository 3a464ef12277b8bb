import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafkaBus, type KafkaBus } from '@iot/infra/bus/kafka.ts';
import { busTelemetrySink, startTimeseriesWriter, TELEMETRY_TOPIC, TIMESERIES_WRITER_GROUP } from '@iot/ingest/writer.ts';
import type { Subscription } from '@iot/contracts/ports/bus.ts';
import { ChdbTimeSeriesStore } from '@iot/infra/timeseries/chdb.ts';
import type { TelemetryRow, TimeSeriesStore } from '@iot/infra/timeseries/index.ts';
import { resolveEngine, type EngineHandle } from '../harness/engines.ts';
import { startKafka } from '../harness/kafka.ts';
import { waitFor } from '../harness/process.ts';

/**
 * Back-pressure on the Kafka path (issue 11): when the time-series store falls behind, the writer stops taking
 * messages (kafkajs fetches again only once the handler is through the last fetch) and what it has not taken
 * waits in Kafka, so the writer's memory stays at one fetch however much is published meanwhile.
 */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapMb = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

const FETCH_BYTES = 1024 * 1024;
const DEVICES = 20;
const SAMPLES_PER_MESSAGE = 100;
const MESSAGES_PER_DEVICE = 220;

let kafka: EngineHandle;
let bus: KafkaBus;
let dataDir: string;
let store: ChdbTimeSeriesStore;
let writer: Subscription | undefined;
/** Opens the store's gate; called at the end whatever happened, so the writer can stop. */
let open: () => void = () => undefined;

beforeAll(async () => {
  const resolved = await resolveEngine('Kafka', 'KAFKA_BROKERS', () => startKafka());
  if (!resolved.ok) throw new Error(resolved.reason);
  kafka = resolved.engine;
  bus = createKafkaBus({
    brokers: kafka.url.split(','),
    clientId: 'backpressure',
    fetchMaxBytes: FETCH_BYTES,
    fetchMaxBytesPerPartition: FETCH_BYTES / 4,
  });
  dataDir = mkdtempSync(join(tmpdir(), 'kafka-bp-'));
  store = new ChdbTimeSeriesStore({ path: dataDir });
  await store.migrate();
}, 180_000);

afterAll(async () => {
  open();
  await writer?.stop();
  await bus?.close();
  await store?.close();
  await kafka?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('Kafka writer back-pressure', () => {
  it('takes no more from Kafka while the store does not answer, holds one fetch in memory, and catches up once it does', async () => {
    // The real store behind a gate: inserts wait until it opens, as on a store that has fallen behind.
    const opened = new Promise<void>((resolve) => (open = resolve));
    let waiting = 0;
    let handed = 0;
    const slow: TimeSeriesStore = Object.create(store, {
      insertTelemetry: {
        value: async (rows: TelemetryRow[], options?: { dedupToken?: string }) => {
          waiting += 1;
          handed += rows.length;
          await opened;
          waiting -= 1;
          return store.insertTelemetry(rows, options);
        },
      },
    });
    writer = await startTimeseriesWriter({ bus, timeseries: slow });
    const sink = busTelemetrySink(bus);
    let published = 0;
    let publishedBytes = 0;
    const before = heapMb();
    for (let m = 0; m < MESSAGES_PER_DEVICE; m++) {
      const rows: TelemetryRow[] = [];
      for (let d = 0; d < DEVICES; d++)
        for (let i = 0; i < SAMPLES_PER_MESSAGE; i++)
          rows.push({
            tenantId: 'bp',
            deviceId: `dev-${d}`,
            productId: 'p',
            variable: 'temperature',
            ts: new Date(Date.UTC(2026, 10, 3) + (m * SAMPLES_PER_MESSAGE + i) * 1000),
            value: m + i / 1000,
            text: null,
          });
      await sink.write(rows);
      published += rows.length;
      publishedBytes += JSON.stringify(
        rows.map((r) => [r.tenantId, r.deviceId, r.productId, r.variable, r.ts.getTime(), r.value, r.text]),
      ).length;
    }
    // Another group on the same bus reads the whole topic meanwhile: a writer that did not hold back would have by then.
    let probed = 0;
    const probe = await bus.subscribe({
      topic: TELEMETRY_TOPIC,
      group: 'backpressure-probe',
      fromBeginning: true,
      onMessages: async (batch) => void (probed += batch.length),
    });
    await waitFor('another group through the topic', () => probed >= DEVICES * MESSAGES_PER_DEVICE, 60_000);
    await probe.stop();
    const during = heapMb();

    // One batch in the store's hands, the rest in Kafka; memory grew by about one fetch, not by what was published.
    expect(waiting).toBe(1);
    expect(handed).toBeLessThan(published / 10);
    expect(await bus.lag(TIMESERIES_WRITER_GROUP, TELEMETRY_TOPIC)).toBe(DEVICES * MESSAGES_PER_DEVICE);
    expect(publishedBytes / 2 ** 20).toBeGreaterThan(25);
    expect(during - before).toBeLessThan(12);

    open();
    await waitFor('the writer caught up', async () => (await bus.lag(TIMESERIES_WRITER_GROUP, TELEMETRY_TOPIC)) === 0, 60_000, 200);
    const result = await store.client.query({ query: `SELECT count() AS n FROM telemetry WHERE tenant_id = 'bp'`, format: 'JSONEachRow' });
    expect(Number((await result.json<{ n: string }>())[0]!.n)).toBe(published);
  }, 180_000);
});
