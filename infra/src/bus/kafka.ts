import kafkajs from 'kafkajs';
import type { Admin, Consumer, EachBatchPayload, Kafka, logCreator, Producer } from 'kafkajs';
import { WriteBatcher } from '@iot/ingest/batcher.ts';
import type { Bus, BusMessage, OutgoingMessage, SubscribeOptions, Subscription } from '@iot/contracts/ports/bus.ts';
import { encodeValue } from './codec.ts';

const { Kafka: KafkaClient, Partitioners, logLevel } = kafkajs;

/**
 * The bus over Apache Kafka: a topic is a Kafka topic, the key the record key, and a group the Kafka
 * consumer group `<group>.<topic>`: the port's groups are per topic, while kafkajs' assigners hand a
 * group's partitions to members whatever topic each subscribed to, so one Kafka group spans one topic.
 */
export interface KafkaBusOptions {
  /** Broker addresses; default `KAFKA_BROKERS` (comma-separated). */
  brokers?: string[];
  clientId?: string;
  /** Partitions of topics this bus creates: at most this many subscribers of a group work in parallel. */
  partitions?: number;
  /** Wait before a failed batch is delivered again; doubles up to 30x. */
  retryDelayMs?: number;
  /**
   * Most bytes one fetch brings, and per partition (one partition's part is one batch for the handler). A
   * consumer fetches again only once its handler has worked through the last fetch, so this bounds the memory
   * of a consumer whose handler falls behind: the rest waits in Kafka. Default 16 MB and 4 MB.
   */
  fetchMaxBytes?: number;
  fetchMaxBytesPerPartition?: number;
  /** kafkajs' own logging; errors only by default. */
  logLevel?: 'nothing' | 'error' | 'warn' | 'info' | 'debug';
}

export function kafkaBrokersFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const brokers = (env.KAFKA_BROKERS ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (brokers.length === 0) throw new Error('KAFKA_BROKERS is not set');
  return brokers;
}

/** Messages in one produce request at most (group commit of concurrent publishes; a partition takes 1 MB a request). */
const MAX_MESSAGES_PER_SEND = 2_000;

/** Offset metadata of a batch handed to a handler and not yet committed: `pending:<first>-<last>`. */
const PENDING = 'pending:';
interface PendingBatch {
  first: string;
  last: string;
}

/** The Kafka consumer group behind the port's group on one topic. */
export const kafkaGroupId = (group: string, topic: string): string => `${group}.${topic}`;

const levels = {
  nothing: logLevel.NOTHING,
  error: logLevel.ERROR,
  warn: logLevel.WARN,
  info: logLevel.INFO,
  debug: logLevel.DEBUG,
};

/**
 * kafkajs logs every protocol error answer at ERROR, including the retriable ones it recovers from
 * (a rebalance, a coordinator still loading): drop those; what does not recover reaches the caller as an error.
 */
const quietLogCreator: logCreator =
  () =>
  ({ namespace, level, log }) => {
    if (namespace === 'Connection' && log.message.startsWith('Response')) return;
    const { message, ...extra } = log;
    const line = `kafkajs ${message} ${JSON.stringify(extra)}`;
    if (level <= logLevel.WARN) console.error(line);
    else console.info(line);
  };

/** The Kafka bus, and what only Kafka can tell. */
export interface KafkaBus extends Bus {
  /** Messages of a topic that a port group has not committed yet (its consumer lag). */
  lag(group: string, topic: string): Promise<number>;
}

export function createKafkaBus(options: KafkaBusOptions = {}): KafkaBus {
  const brokers = options.brokers ?? kafkaBrokersFromEnv();
  const partitions = options.partitions ?? 6;
  const retryDelayMs = options.retryDelayMs ?? 100;
  const kafka: Kafka = new KafkaClient({
    clientId: options.clientId ?? 'iot-platform',
    brokers,
    logLevel: levels[options.logLevel ?? 'error'],
    logCreator: quietLogCreator,
  });
  // Idempotent with one request in flight: retries neither duplicate nor reorder a key's messages.
  const producer: Producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  const admin: Admin = kafka.admin();
  const consumers = new Set<Subscription>();
  const knownTopics = new Map<string, Promise<void>>();
  let connecting: Promise<void> | undefined;
  let closed = false;

  const connect = (): Promise<void> => {
    connecting ??= Promise.all([producer.connect(), admin.connect()]).then(
      () => undefined,
      (error: unknown) => {
        connecting = undefined; // the next call tries again
        throw error;
      },
    );
    return connecting;
  };

  const ensureTopic = (topic: string): Promise<void> => {
    let ready = knownTopics.get(topic);
    if (!ready) {
      ready = connect()
        .then(() =>
          admin.createTopics({
            topics: [{ topic, numPartitions: partitions }],
            waitForLeaders: true,
          }),
        )
        .then(() => undefined);
      ready.catch(() => knownTopics.delete(topic));
      knownTopics.set(topic, ready);
    }
    return ready;
  };

  /**
   * Where a group with no committed position should start when it asks for new messages only: the
   * topic's end now, so that subscribe() resolving means "sees everything published from here on".
   * kafkajs would resolve "latest" at its first fetch, after the join, missing what came in between.
   */
  const endsIfNewGroup = async (groupId: string, topic: string): Promise<Map<number, string> | undefined> => {
    const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
    if (!(offsets?.partitions ?? []).every((p) => p.offset === '-1')) return undefined;
    return new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, p.high]));
  };

  const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

  /**
   * Group commit per topic: publishes made while a send is in flight go together in the next one. With one
   * request in flight (above), a send per publish would make the intake wait a round trip per MQTT message.
   */
  const senders = new Map<string, WriteBatcher<OutgoingMessage>>();
  const sendsOf = (topic: string): WriteBatcher<OutgoingMessage> => {
    let sender = senders.get(topic);
    if (!sender) {
      sender = new WriteBatcher<OutgoingMessage>(async (messages) => {
        await producer.send({
          topic,
          acks: -1,
          messages: messages.map((m) => ({ key: m.key ?? null, value: encodeValue(m.value), headers: m.headers })),
        });
      }, MAX_MESSAGES_PER_SEND);
      senders.set(topic, sender);
    }
    return sender;
  };

  /** The batches a group's members had handed out and not committed, from their committed offsets' metadata. */
  const pendingBatches = async (groupId: string, topic: string): Promise<Map<number, PendingBatch>> => {
    const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
    const out = new Map<number, PendingBatch>();
    for (const p of offsets?.partitions ?? []) {
      const match = p.metadata?.startsWith(PENDING) ? /^(\d+)-(\d+)$/.exec(p.metadata.slice(PENDING.length)) : null;
      if (match && match[1] === p.offset) out.set(p.partition, { first: match[1]!, last: match[2]! });
    }
    return out;
  };

  const toBusMessages = ({ batch }: EachBatchPayload): BusMessage[] =>
    batch.messages.map((m) => ({
      topic: batch.topic,
      partition: batch.partition,
      offset: m.offset,
      key: m.key ? m.key.toString('utf8') : null,
      value: m.value ?? Buffer.alloc(0),
      headers: Object.fromEntries(
        Object.entries(m.headers ?? {}).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]])),
      ),
      timestamp: new Date(Number(m.timestamp)),
    }));

  return {
    async publish(topic: string, messages: OutgoingMessage[]): Promise<void> {
      if (closed) throw new Error('bus is closed');
      if (messages.length === 0) return;
      await ensureTopic(topic);
      await sendsOf(topic).enqueue(messages);
    },

    async subscribe({ topic, group, fromBeginning = false, onMessages }: SubscribeOptions): Promise<Subscription> {
      if (closed) throw new Error('bus is closed');
      await ensureTopic(topic);
      const groupId = kafkaGroupId(group, topic);
      let startAt = fromBeginning ? undefined : await endsIfNewGroup(groupId, topic);
      const consumer: Consumer = kafka.consumer({
        groupId,
        maxWaitTimeInMs: 500,
        maxBytes: options.fetchMaxBytes ?? 16 * 1024 * 1024,
        maxBytesPerPartition: options.fetchMaxBytesPerPartition ?? 4 * 1024 * 1024,
        heartbeatInterval: 1000,
        sessionTimeout: 10_000,
        allowAutoTopicCreation: false,
      });
      await consumer.connect();
      const joined = new Promise<void>((resolve) => {
        const off = consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
          off();
          // Synchronously inside the event, so the seeks apply (and commit) before the first fetch.
          for (const partition of payload.memberAssignment[topic] ?? []) {
            const offset = startAt?.get(partition);
            if (offset !== undefined) consumer.seek({ topic, partition, offset });
          }
          startAt = undefined;
          resolve();
        });
      });
      // The batch handed out but not committed when a member stopped, per partition, read at every join.
      let pending: Promise<Map<number, PendingBatch>> = Promise.resolve(new Map());
      consumer.on(consumer.events.GROUP_JOIN, () => {
        pending = pendingBatches(groupId, topic);
        pending.catch(() => undefined);
      });
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await consumer.run({
        eachBatchAutoResolve: false,
        eachBatch: async (payload) => {
          const { partition } = payload.batch;
          let messages = toBusMessages(payload);
          const known = await pending.catch(() => new Map<number, PendingBatch>());
          const before = known.get(partition);
          known.delete(partition);
          while (messages.length > 0) {
            // A batch delivered again after a crash keeps the boundaries it was first handed out with.
            let size = messages.length;
            if (before && messages[0]!.offset === before.first) {
              const end = messages.findIndex((m) => m.offset === before.last);
              if (end >= 0) size = end + 1;
            }
            const batch = messages.slice(0, size);
            messages = messages.slice(size);
            if (!payload.isRunning() || payload.isStale()) return;
            const first = batch[0]!.offset;
            const last = batch[batch.length - 1]!.offset;
            // Written down before the handler sees it: the next member repeats exactly this batch.
            // (Through the batch's own commit, which records the offset as the string kafkajs compares: through
            // consumer.commitOffsets it would count as uncommitted and be committed again without metadata at stop.)
            const mark = { partition, offset: first, metadata: `${PENDING}${first}-${last}` };
            await payload.commitOffsetsIfNecessary({ topics: [{ topic, partitions: [mark] }] });
            // At-least-once: the same batch again until it is handled or this member loses the partition.
            for (let failures = 0; ; failures++) {
              if (!payload.isRunning() || payload.isStale()) return;
              try {
                await onMessages(batch);
                break;
              } catch {
                await sleep(retryDelayMs * Math.min(2 ** failures, 30));
                await payload.heartbeat().catch(() => undefined);
              }
            }
            payload.resolveOffset(last);
            await payload.commitOffsetsIfNecessary();
            await payload.heartbeat();
          }
        },
      });
      await joined;

      let stopping: Promise<void> | undefined;
      const subscription: Subscription = {
        stop() {
          stopping ??= (async () => {
            consumers.delete(subscription);
            await consumer.disconnect();
          })();
          return stopping;
        },
      };
      consumers.add(subscription);
      return subscription;
    },

    async lag(group: string, topic: string): Promise<number> {
      await connect();
      const [committed] = await admin.fetchOffsets({ groupId: kafkaGroupId(group, topic), topics: [topic] });
      const ends = await admin.fetchTopicOffsets(topic);
      return ends.reduce((sum, end) => {
        const at = Number(committed?.partitions.find((p) => p.partition === end.partition)?.offset ?? -1);
        return sum + Number(end.high) - Math.max(at, Number(end.low));
      }, 0);
    },

    async health() {
      try {
        // kafkajs retries an unreachable broker for tens of seconds: a health check answers sooner.
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer from ${brokers.join(',')} within 5 s`)), 5_000);
        });
        const cluster = await Promise.race([connect().then(() => admin.describeCluster()), timeout]).finally(() => clearTimeout(timer));
        return {
          ok: cluster.brokers.length > 0,
          detail: `${cluster.brokers.length} broker(s), controller ${cluster.controller}`,
        };
      } catch (error) {
        return { ok: false, detail: (error as Error).message };
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...consumers].map((s) => s.stop()));
      if (connecting) await Promise.allSettled([producer.disconnect(), admin.disconnect()]);
    },
  };
}
