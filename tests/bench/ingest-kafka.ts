import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { Consumer as PlatformaticConsumer, Producer as PlatformaticProducer } from '@platformatic/kafka';
import kafkajs from 'kafkajs';
import { createKafkaBus } from '@iot/infra/bus/kafka.ts';
import { busTelemetrySink, startTimeseriesWriter, TELEMETRY_TOPIC, TIMESERIES_WRITER_GROUP } from '@iot/ingest/writer.ts';
import { startEmbeddedMqtt } from '@iot/infra/mqtt/embedded.ts';
import { ClickHouseTimeSeriesStore } from '@iot/infra/timeseries/clickhouse.ts';
import { startKafka } from '../harness/kafka.ts';
import { waitFor } from '../harness/process.ts';
import { bareRows, benchProduct, benchTenantApi, countRows, registerDevices, startBenchPlatform } from './bare.ts';
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
const load = async (url: string, credentials: string, vars: number, seconds: number): Promise<Load> => {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', 'tests/bench/mqtt-load.ts', url, credentials, String(vars), String(seconds), String(WINDOW)],
    { maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout) as Load;
};

/**
 * `ingest-kafka` (issue 11): the ingest-3dp load (100 MQTT.js devices at QoS 1, each with a window of publishes
 * in flight, in a process of its own) through the whole platform with `KAFKA_BROKERS` set to a real broker
 * started here: a publish is acknowledged once Kafka has it, the `timeseries-writer` group stores it in chDB.
 * The limit is the bare pipeline with Kafka in the middle, same generator, same broker: an Aedes hook, JSON.parse,
 * a Kafka produce through the same bus adapter, the same writer consuming into a chDB table without rollups.
 * Rates count acknowledged data points; `lost` counts acknowledged ones not stored once the writers caught up.
 */
export async function benchIngestKafka(): Promise<Figure[]> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 15);
  const vars = 3;
  const broker = await startKafka({ heap: '768m' });
  const bench = await startBenchPlatform('kafka', { KAFKA_BROKERS: broker.url });
  const { platform } = bench;
  const bare = await startEmbeddedMqtt({ port: 0 });
  const bareBus = createKafkaBus({ brokers: [broker.url], clientId: 'bench-bare' });
  const lagOf = (topic: string) => bareBus.lag(TIMESERIES_WRITER_GROUP, topic);
  try {
    const { call } = await benchTenantApi(platform);
    const productId = await benchProduct(call, 'BENCH-KAFKA', vars);
    const devices = await registerDevices(call, productId, 'KAFKA', DEVICES);
    await platform.context.awaitProjections?.();
    const credentials = path.join(bench.dir, 'devices.csv');
    await writeFile(credentials, devices.map((d) => `${d.sn},${d.secret}`).join('\n'));

    // The bare pipeline: hook -> JSON.parse -> Kafka -> the writer -> chDB (its own table, no rollups).
    const store = platform.timeseries as ClickHouseTimeSeriesStore;
    const bareStore = new ClickHouseTimeSeriesStore(store.client, 'chdb', 'telemetry_bare', false);
    await bareStore.migrate();
    const bareTopic = 'telemetry-bare';
    const bareSink = busTelemetrySink(bareBus, bareTopic);
    const bareWriter = await startTimeseriesWriter({ bus: bareBus, timeseries: bareStore, topic: bareTopic });
    await bare.onMessage('devices/+/telemetry', async (message) => {
      await bareSink.write(bareRows(message));
    });
    const count = (table: string) => countRows(store.client, table);
    /** Waits for a writer to catch up; returns how long that took after the load ended. */
    const drain = async (topic: string): Promise<number> => {
      const started = performance.now();
      // Past two minutes the figure says how long it waited, and `lost` what was not there.
      await waitFor(`the writer of ${topic} caught up`, async () => (await lagOf(topic)) <= 0, 120_000, 200).catch(() => undefined);
      return Math.round(performance.now() - started);
    };

    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
    const before = await count('telemetry');
    const product_ = await load(bench.mqttUrl, credentials, vars, seconds);
    const drainMs = await drain(TELEMETRY_TOPIC);
    clearInterval(sampler);
    const stored = (await count('telemetry')) - before;
    const bareBefore = await count('telemetry_bare');
    const limit = await load(bare.url, credentials, vars, seconds);
    const limitDrainMs = await drain(bareTopic);
    const bareStored = (await count('telemetry_bare')) - bareBefore;
    await bareWriter.stop();
    const dps = (product_.acked * vars) / product_.seconds;
    const limitDps = (limit.acked * vars) / limit.seconds;
    return [
      {
        bench: 'ingest-kafka',
        value: Math.round(dps),
        unit: 'dp/s',
        limit: Math.round(limitDps),
        limit_of:
          'bare pipeline with Kafka in the middle (Aedes hook, JSON.parse, Kafka produce, consume, chDB insert, no rollups), same generator',
        ratio: Number((dps / limitDps).toFixed(3)),
        p99_ms: product_.p99Ms,
        p50_ms: product_.p50Ms,
        limit_p99_ms: limit.p99Ms,
        // How long the writer took to store what was acknowledged, after the load stopped.
        drain_ms: drainMs,
        limit_drain_ms: limitDrainMs,
        rss_mb: Math.round(peak / 2 ** 20),
        lost: product_.acked * vars - stored,
        limit_lost: limit.acked * vars - bareStored,
        devices: DEVICES,
        seconds,
      },
    ];
  } finally {
    await bare.close();
    await bareBus.close();
    await bench.stop();
    await broker.stop();
  }
}

/** A telemetry message as the intake publishes it: one device's rows of one MQTT message (3 data points). */
const telemetryMessage = (i: number) => {
  const device = `dev-${String(i % 100).padStart(3, '0')}-${'x'.repeat(26)}`;
  const ts = 1_795_000_000_000 + i;
  return {
    key: device,
    value: Buffer.from(
      JSON.stringify([1, 2, 3].map((v) => ['tenant-bench', device, 'product-bench', `v${v}`, ts, (i % 1000) + v / 10, null])),
    ),
  };
};

const seconds = (since: number) => (performance.now() - since) / 1000;

/**
 * `kafka-clients` (issue 11): kafkajs against @platformatic/kafka on the same real broker, on the telemetry
 * message shape: a producer (idempotent, acks from all replicas) sending chunks of 4,000 messages, one at a time,
 * and a consumer group reading them all back from the beginning (kafkajs committing per batch as the adapter
 * does; @platformatic/kafka 1.35 (what npm resolves here: it runs on Node 20, and 2.x wants Node 22.22+) without commits, and `limit_consumed` says how many of them it delivered:
 * its stream stopped short of the end in every run here, e.g. 97,000 of 100,000).
 */
export async function benchKafkaClients(): Promise<Figure[]> {
  const total = Number(process.env.BENCH_KAFKA_MESSAGES ?? 200_000);
  /**
   * One send at a time of 4,000 messages, as the adapter does (a group-committed send per topic): kafkajs' idempotent
   * producer with several sends at once to the same partitions failed with OUT_OF_ORDER_SEQUENCE_NUMBER under load
   * (its sequence numbers are taken per send, and a retried send went out behind a later one).
   */
  const chunk = 4000;
  const inFlight = 1;
  const broker = await startKafka({ heap: '768m' });
  const brokers = [broker.url];
  const messages = Array.from({ length: total }, (_, i) => telemetryMessage(i));
  const chunks = Array.from({ length: Math.ceil(total / chunk) }, (_, c) => messages.slice(c * chunk, (c + 1) * chunk));
  const admin = new kafkajs.Kafka({ brokers, logLevel: kafkajs.logLevel.NOTHING }).admin();
  await admin.connect();
  const createTopic = async (topic: string) => {
    await admin.createTopics({ topics: [{ topic, numPartitions: 6 }], waitForLeaders: true });
  };
  /** Sends every chunk, `inFlight` at a time. */
  const produce = async (send: (c: (typeof chunks)[number]) => Promise<unknown>) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < chunks.length) await send(chunks[next++]!);
      }),
    );
  };
  const results: Record<string, { produce: number; consume: number }> = {};
  let platformaticConsumed = 0;
  try {
    {
      const topic = 'bench-kafkajs';
      await createTopic(topic);
      const kafka = new kafkajs.Kafka({ brokers, clientId: 'bench-kafkajs', logLevel: kafkajs.logLevel.NOTHING });
      // The adapter's producer (infra/src/bus/kafka.ts): idempotent, one request in flight.
      const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      let started = performance.now();
      await produce((c) => producer.send({ topic, acks: -1, messages: c }));
      const produced = total / seconds(started);
      await producer.disconnect();
      const consumer = kafka.consumer({
        groupId: 'bench-kafkajs',
        maxBytes: 16 * 1024 * 1024,
        maxBytesPerPartition: 4 * 1024 * 1024,
      });
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      let seen = 0;
      let finish: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (finish = resolve));
      started = performance.now();
      await consumer.run({
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, resolveOffset, commitOffsetsIfNecessary }) => {
          for (const m of batch.messages) JSON.parse(m.value!.toString('utf8'));
          seen += batch.messages.length;
          resolveOffset(batch.lastOffset());
          await commitOffsetsIfNecessary();
          if (seen >= total) finish();
        },
      });
      await done;
      const consumed = total / seconds(started);
      await consumer.disconnect();
      results.kafkajs = { produce: produced, consume: consumed };
    }
    {
      const topic = 'bench-platformatic';
      await createTopic(topic);
      const producer = new PlatformaticProducer({ clientId: 'bench-platformatic', bootstrapBrokers: brokers, idempotent: true, acks: -1 });
      let started = performance.now();
      await produce((c) => producer.send({ messages: c.map((m) => ({ topic, key: Buffer.from(m.key), value: m.value })) }));
      const produced = total / seconds(started);
      await producer.close();
      const consumer = new PlatformaticConsumer({
        clientId: 'bench-platformatic',
        groupId: 'bench-platformatic',
        bootstrapBrokers: brokers,
      });
      started = performance.now();
      const stream = await consumer.consume({ topics: [topic], mode: 'earliest', autocommit: false });
      let seen = 0;
      let last = started;
      // Ends at the last message, or once nothing has come for 5 s (it stalled short of the end here: reported).
      await new Promise<void>((resolve) => {
        const finish = () => {
          clearInterval(idle);
          resolve();
        };
        const idle = setInterval(() => {
          if (performance.now() - last > 5000) finish();
        }, 500);
        stream.on('data', (m: { value: Buffer }) => {
          JSON.parse(m.value.toString('utf8'));
          seen += 1;
          last = performance.now();
          if (seen >= total) finish();
        });
      });
      const consumed = seen / ((last - started) / 1000);
      platformaticConsumed = seen;
      await stream.close();
      await consumer.close(true);
      results.platformatic = { produce: produced, consume: consumed };
    }
  } finally {
    await admin.disconnect();
    await broker.stop();
  }
  const figure = (bench: string, phase: 'produce' | 'consume'): Figure => ({
    bench,
    value: Math.round(results.kafkajs![phase]),
    unit: 'msg/s',
    limit: Math.round(results.platformatic![phase]),
    limit_of: `@platformatic/kafka ${phase}r, same broker, same messages`,
    ratio: Number((results.kafkajs![phase] / results.platformatic![phase]).toFixed(3)),
    messages: total,
    ...(phase === 'consume' ? { limit_consumed: platformaticConsumed } : {}),
    message_bytes: messages[0]!.value.length,
  });
  return [figure('kafka-clients-produce', 'produce'), figure('kafka-clients-consume', 'consume')];
}
