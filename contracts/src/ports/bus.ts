/**
 * The bus: topics of keyed messages, consumed by groups (ARCHITECTURE.md "Ports and adapters").
 * Adapters in `infra/src/bus/`: `in-process.ts` (embedded default, bounded, with back-pressure) and `kafka.ts` (`KAFKA_BROKERS`).
 *
 * Guarantees every adapter keeps (checked by tests/contracts/bus.int.test.ts):
 * - messages with the same key are delivered to a group in the order they were published;
 * - each group receives every message at least once (exactly once while no consumer fails or restarts);
 * - several groups on one topic each receive every message;
 * - a batch is acknowledged only when `onMessages` resolves; if it throws, the batch is delivered again;
 * - a batch delivered again has the boundaries it was first handed out with (first and last offset), also to
 *   another subscriber after one stopped or crashed (Kafka keeps them in the committed offset's metadata), so a
 *   handler can make its work idempotent per batch (the time-series writer's deduplication token).
 */

/** What a producer may send: bytes, a string (UTF-8) or a JSON-serialisable object. */
export type BusValue = Uint8Array | string | object;

export interface OutgoingMessage {
  /** Partitioning key (a device id, a tenant id): messages with one key keep their order. Omit for no order. */
  key?: string | null;
  value: BusValue;
  headers?: Record<string, string>;
}

export interface BusMessage {
  topic: string;
  /** Partition the key hashed to; order holds within a partition. */
  partition: number;
  /** Position within the partition, as a decimal string (Kafka offsets exceed 2^53). */
  offset: string;
  key: string | null;
  /** Always bytes: `decodeJson(message)` (infra/src/bus/codec.ts) or `message.value.toString()` to read it. */
  value: Uint8Array;
  headers: Record<string, string>;
  /** When the message was published. */
  timestamp: Date;
}

export interface SubscribeOptions {
  topic: string;
  /** Consumer group: the group receives each message once, shared among its subscribers. */
  group: string;
  /** For a group with no position yet: start at the oldest retained message (true) or only new ones (false, default). */
  fromBeginning?: boolean;
  /** Handles one batch, in order; resolve to acknowledge it, throw to have it delivered again. */
  onMessages(batch: BusMessage[]): Promise<void>;
}

export interface Subscription {
  /** Leaves the group after the batch in hand is handled; the group's position is kept for the next subscriber. */
  stop(): Promise<void>;
}

export interface Bus {
  /** Resolves when the messages are accepted (Kafka: acknowledged by the broker); waits while the bus is full. */
  publish(topic: string, messages: OutgoingMessage[]): Promise<void>;
  /** Resolves once the subscriber has joined its group and receives messages. */
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  health(): Promise<{ ok: boolean; detail?: string }>;
  /** Stops every subscription and releases connections. */
  close(): Promise<void>;
}
