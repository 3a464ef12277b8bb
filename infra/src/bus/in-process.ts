import type { Bus, BusMessage, OutgoingMessage, SubscribeOptions, Subscription } from '@iot/contracts/ports/bus.ts';
import { encodeValue } from './codec.ts';

/**
 * The embedded bus: topics live in memory, split into partitions by key like Kafka's, so that a
 * group's subscribers share the work and one key is handled by one subscriber at a time, in order.
 *
 * A message is in flight from `publish` until every group known to the topic has handled it (or,
 * while no group exists yet, until the first one does). When a topic holds `maxInFlightPerTopic`
 * such messages, `publish` waits: back-pressure instead of dropping. A stopped group keeps its
 * position (like a Kafka committed offset), so its messages stay in flight until it comes back.
 */
export interface InProcessBusOptions {
  /** Messages not yet handled by every group, per topic, before publishers wait. */
  maxInFlightPerTopic?: number;
  /** Partitions per topic: at most this many subscribers of a group work in parallel. */
  partitions?: number;
  /** Largest batch handed to `onMessages`. */
  maxBatchSize?: number;
  /** Wait before a failed batch is delivered again; doubles up to 30x. */
  retryDelayMs?: number;
}

interface Member {
  onMessages: SubscribeOptions['onMessages'];
  /** The batch being handled, awaited by `stop()`. */
  running: Set<Promise<void>>;
  stopped: boolean;
}

interface Group {
  members: Member[];
  /** Next offset to deliver, per partition. */
  cursors: number[];
  busy: boolean[];
  /** Size of the batch that failed and is to be delivered again, per partition. */
  retrying: (number | undefined)[];
}

interface Partition {
  /** Offset of `messages[0]`. */
  base: number;
  messages: BusMessage[];
}

interface Topic {
  name: string;
  partitions: Partition[];
  groups: Map<string, Group>;
  /** Publishers waiting for room, woken in order. */
  waiters: (() => void)[];
  nextKeyless: number;
}

export function createInProcessBus(options: InProcessBusOptions = {}): Bus {
  const maxInFlight = options.maxInFlightPerTopic ?? 10_000;
  const partitionCount = options.partitions ?? 8;
  const maxBatchSize = options.maxBatchSize ?? 500;
  const retryDelayMs = options.retryDelayMs ?? 100;
  const topics = new Map<string, Topic>();
  const subscriptions = new Set<Subscription>();
  let closed = false;

  const topicOf = (name: string): Topic => {
    let topic = topics.get(name);
    if (!topic) {
      topic = {
        name,
        partitions: Array.from({ length: partitionCount }, () => ({
          base: 0,
          messages: [],
        })),
        groups: new Map(),
        waiters: [],
        nextKeyless: 0,
      };
      topics.set(name, topic);
    }
    return topic;
  };

  const end = (partition: Partition): number => partition.base + partition.messages.length;

  const inFlight = (topic: Topic): number => topic.partitions.reduce((sum, p) => sum + p.messages.length, 0);

  /** Drops what every group has handled and wakes publishers if there is room again. */
  const trim = (topic: Topic): void => {
    if (topic.groups.size === 0) return;
    topic.partitions.forEach((partition, index) => {
      let slowest = end(partition);
      for (const group of topic.groups.values()) slowest = Math.min(slowest, group.cursors[index] ?? 0);
      const handled = slowest - partition.base;
      if (handled > 0) {
        partition.messages.splice(0, handled);
        partition.base = slowest;
      }
    });
    while (topic.waiters.length > 0 && inFlight(topic) < maxInFlight) topic.waiters.shift()?.();
  };

  const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

  /** Delivers one group's partition batch by batch, to whichever member the partition is assigned to now. */
  const pump = async (topic: Topic, group: Group, index: number): Promise<void> => {
    if (group.busy[index]) return;
    group.busy[index] = true;
    try {
      const partition = topic.partitions[index]!;
      let failures = 0;
      for (;;) {
        const member = group.members[index % Math.max(group.members.length, 1)];
        const cursor = group.cursors[index]!;
        if (!member || closed || cursor >= end(partition)) return;
        const from = cursor - partition.base;
        // A batch delivered again keeps its boundaries (port.ts), however much has been published since.
        const batch = partition.messages.slice(from, from + (group.retrying[index] ?? maxBatchSize));
        const handling = member.onMessages(batch);
        member.running.add(handling);
        try {
          await handling;
          group.cursors[index] = cursor + batch.length;
          group.retrying[index] = undefined;
          failures = 0;
          trim(topic);
        } catch {
          // At-least-once: the same batch again, to the member that holds the partition then.
          group.retrying[index] = batch.length;
          failures += 1;
          await sleep(retryDelayMs * Math.min(2 ** (failures - 1), 30));
        } finally {
          member.running.delete(handling);
        }
      }
    } finally {
      group.busy[index] = false;
    }
  };

  const pumpAll = (topic: Topic, group: Group): void => {
    for (let index = 0; index < partitionCount; index++) void pump(topic, group, index);
  };

  const partitionFor = (topic: Topic, key: string | null | undefined): number => {
    if (key == null) return topic.nextKeyless++ % partitionCount;
    let hash = 0x811c9dc5; // FNV-1a
    for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
    return (hash >>> 0) % partitionCount;
  };

  const scheduled = new Set<Topic>();
  /** Starts delivery after the current tick, so that one publish call becomes one batch. */
  const schedule = (topic: Topic): void => {
    if (scheduled.has(topic)) return;
    scheduled.add(topic);
    queueMicrotask(() => {
      scheduled.delete(topic);
      for (const group of topic.groups.values()) pumpAll(topic, group);
    });
  };

  return {
    async publish(topicName: string, messages: OutgoingMessage[]): Promise<void> {
      const topic = topicOf(topicName);
      for (const message of messages) {
        while (inFlight(topic) >= maxInFlight) {
          if (closed) throw new Error('bus is closed');
          await new Promise<void>((resolve) => topic.waiters.push(resolve));
        }
        if (closed) throw new Error('bus is closed');
        const index = partitionFor(topic, message.key);
        const partition = topic.partitions[index]!;
        partition.messages.push({
          topic: topicName,
          partition: index,
          offset: String(end(partition)),
          key: message.key ?? null,
          value: encodeValue(message.value),
          headers: { ...message.headers },
          timestamp: new Date(),
        });
        schedule(topic);
      }
    },

    async subscribe({ topic: topicName, group: groupName, fromBeginning = false, onMessages }: SubscribeOptions) {
      if (closed) throw new Error('bus is closed');
      const topic = topicOf(topicName);
      let group = topic.groups.get(groupName);
      if (!group) {
        const firstGroup = topic.groups.size === 0;
        group = {
          members: [],
          // Messages published before any group existed wait for the first one, like a Kafka log.
          cursors: topic.partitions.map((p) => (fromBeginning || firstGroup ? p.base : end(p))),
          busy: topic.partitions.map(() => false),
          retrying: topic.partitions.map(() => undefined),
        };
        topic.groups.set(groupName, group);
      }
      const member: Member = { onMessages, running: new Set(), stopped: false };
      group.members.push(member);
      const joined = group;
      pumpAll(topic, joined);

      const subscription: Subscription = {
        async stop() {
          if (member.stopped) return;
          member.stopped = true;
          subscriptions.delete(subscription);
          joined.members = joined.members.filter((m) => m !== member);
          await Promise.allSettled([...member.running]);
          pumpAll(topic, joined);
        },
      };
      subscriptions.add(subscription);
      return subscription;
    },

    async health() {
      if (closed) return { ok: false, detail: 'closed' };
      const full = [...topics.values()].filter((t) => inFlight(t) >= maxInFlight).map((t) => t.name);
      // A full topic is back-pressure at work, not a failure: report it without failing health.
      return full.length > 0 ? { ok: true, detail: `full: ${full.join(', ')}` } : { ok: true };
    },

    async close() {
      closed = true;
      await Promise.all([...subscriptions].map((s) => s.stop()));
      for (const topic of topics.values()) topic.waiters.splice(0).forEach((wake) => wake());
    },
  };
}
