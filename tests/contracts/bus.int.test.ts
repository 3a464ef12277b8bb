import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createInProcessBus } from '@iot/infra/bus/in-process.ts';
import { createKafkaBus } from '@iot/infra/bus/kafka.ts';
import type { Bus, BusMessage, Subscription } from '@iot/contracts/ports/bus.ts';
import { decodeJson } from '@iot/infra/bus/codec.ts';
import { resolveEngine, type EngineHandle } from '../harness/engines.ts';
import { startKafka } from '../harness/kafka.ts';
import { waitFor as waitUntil } from '../harness/process.ts';

/** One adapter under test: `open` gives a bus, or the reason its engine is unavailable. */
interface Adapter {
  name: string;
  open(): Promise<{ bus: Bus; close(): Promise<void> } | { skip: string }>;
}

const adapters: Adapter[] = [
  {
    name: 'in-process',
    async open() {
      const bus = createInProcessBus({
        maxInFlightPerTopic: 1_000,
        partitions: 4,
      });
      return { bus, close: () => bus.close() };
    },
  },
  {
    name: 'kafka',
    async open() {
      const resolved = await resolveEngine('Kafka', 'KAFKA_BROKERS', () => startKafka());
      if (!resolved.ok) return { skip: resolved.reason };
      const engine: EngineHandle = resolved.engine;
      const bus = createKafkaBus({
        brokers: engine.url.split(','),
        partitions: 4,
        clientId: 'bus-contract',
      });
      return {
        bus,
        close: async () => (await bus.close(), await engine.stop()),
      };
    },
  },
];

interface Reading {
  device: string;
  seq: number;
}

const topicName = () => `test.${randomUUID()}`;
const waitFor = (condition: () => boolean, what: string, timeoutMs = 30_000) => waitUntil(what, condition, timeoutMs, 20);

/** `count` readings per device, interleaved across devices: device-0 #0, device-1 #0, ..., device-0 #1, ... */
function readings(devices: number, count: number): Reading[] {
  const out: Reading[] = [];
  for (let seq = 0; seq < count; seq++) for (let d = 0; d < devices; d++) out.push({ device: `device-${d}`, seq });
  return out;
}

async function publishReadings(bus: Bus, topic: string, all: Reading[], batchSize = 50): Promise<void> {
  for (let i = 0; i < all.length; i += batchSize) {
    await bus.publish(
      topic,
      all.slice(i, i + batchSize).map((r) => ({ key: r.device, value: r })),
    );
  }
}

/** Collects what one subscriber receives. */
function collector() {
  const received: Reading[] = [];
  return {
    received,
    onMessages: async (batch: BusMessage[]) => {
      for (const message of batch) received.push(decodeJson<Reading>(message));
    },
  };
}

/** The sequence number of the last message per key that `drained` publishes. */
const LAST = -1;
const ids = (rs: Reading[]) => rs.filter((r) => r.seq !== LAST).map((r) => `${r.device}#${r.seq}`);

/**
 * Publishes one more message per device and waits until every subscriber that should get it has: a bus keeps
 * each key's order, so whatever it would still deliver of the earlier messages (a duplicate, a replay) came first.
 */
async function drained(bus: Bus, topic: string, devices: number, ...subscribers: Array<() => Reading[]>): Promise<void> {
  const keys = Array.from({ length: devices }, (_, d) => `device-${d}`);
  await bus.publish(
    topic,
    keys.map((device) => ({ key: device, value: { device, seq: LAST } })),
  );
  const arrived = (received: Reading[]) => keys.every((device) => received.some((r) => r.device === device && r.seq === LAST));
  await waitFor(() => subscribers.every((received) => arrived(received())), `the last message of ${devices} keys`);
}

describe.each(adapters)('bus contract: $name', (adapter) => {
  let sut: Bus;
  let close: (() => Promise<void>) | undefined;
  let skipped: string | undefined;
  const subscriptions: Subscription[] = [];
  const subscribe = async (...args: Parameters<Bus['subscribe']>) => {
    const subscription = await sut.subscribe(...args);
    subscriptions.push(subscription);
    return subscription;
  };

  beforeAll(async () => {
    const opened = await adapter.open();
    if ('skip' in opened) skipped = opened.skip;
    else ({ bus: sut, close } = opened);
  });
  beforeEach((context) => {
    if (skipped) context.skip(skipped);
  });
  afterAll(async () => {
    await Promise.all(subscriptions.map((s) => s.stop()));
    await close?.();
  });

  it('is healthy', async () => {
    expect(await sut.health()).toMatchObject({ ok: true });
  });

  it('keeps the order of each key’s messages', async () => {
    const topic = topicName();
    const sent = readings(8, 100);
    const group = collector();
    await subscribe({
      topic,
      group: 'writer',
      fromBeginning: true,
      onMessages: group.onMessages,
    });

    await publishReadings(sut, topic, sent, 37);

    await waitFor(() => group.received.length >= sent.length, 'all messages');
    for (let d = 0; d < 8; d++) {
      const seqs = group.received.filter((r) => r.device === `device-${d}`).map((r) => r.seq);
      expect(seqs).toEqual([...Array(100).keys()]);
    }
  });

  it('delivers every message once to a group whose subscribers share the work, in key order', async () => {
    const topic = topicName();
    const sent = readings(20, 30);
    const first = collector();
    const second = collector();
    await subscribe({
      topic,
      group: 'shared',
      fromBeginning: true,
      onMessages: first.onMessages,
    });
    await subscribe({
      topic,
      group: 'shared',
      fromBeginning: true,
      onMessages: second.onMessages,
    });

    await publishReadings(sut, topic, sent);

    const all = () => [...first.received, ...second.received];
    await waitFor(() => all().length >= sent.length, 'all messages');
    await drained(sut, topic, 20, all);
    expect(ids(all()).sort()).toEqual(ids(sent).sort());
    for (const { received } of [first, second]) {
      for (let d = 0; d < 20; d++) {
        const seqs = received.filter((r) => r.device === `device-${d}` && r.seq !== LAST).map((r) => r.seq);
        expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      }
    }
  });

  it('gives every message to each of two groups', async () => {
    const topic = topicName();
    const sent = readings(5, 40);
    const writer = collector();
    const evaluator = collector();
    await subscribe({
      topic,
      group: 'writer',
      fromBeginning: true,
      onMessages: writer.onMessages,
    });
    await subscribe({
      topic,
      group: 'evaluator',
      fromBeginning: true,
      onMessages: evaluator.onMessages,
    });

    await publishReadings(sut, topic, sent);

    await waitFor(() => writer.received.length >= sent.length && evaluator.received.length >= sent.length, 'both groups');
    await drained(
      sut,
      topic,
      5,
      () => writer.received,
      () => evaluator.received,
    );
    expect(ids(writer.received).sort()).toEqual(ids(sent).sort());
    expect(ids(evaluator.received).sort()).toEqual(ids(sent).sort());
  });

  it('delivers a batch again when its handler throws, without breaking key order', async () => {
    const topic = topicName();
    const sent = readings(3, 20);
    const received: Reading[] = [];
    let failuresLeft = 2;
    await subscribe({
      topic,
      group: 'flaky',
      fromBeginning: true,
      onMessages: async (batch) => {
        if (failuresLeft > 0) {
          failuresLeft -= 1;
          throw new Error('database unavailable');
        }
        for (const message of batch) received.push(decodeJson<Reading>(message));
      },
    });

    await publishReadings(sut, topic, sent, 10);

    await waitFor(() => received.length >= sent.length, 'all messages after failures');
    expect(ids(received).sort()).toEqual(ids(sent).sort());
    for (let d = 0; d < 3; d++) {
      expect(received.filter((r) => r.device === `device-${d}`).map((r) => r.seq)).toEqual([...Array(20).keys()]);
    }
  });

  it('delivers a batch that was not acknowledged again with its boundaries, to the next subscriber too, though more came since', async () => {
    const topic = topicName();
    const span = (batch: BusMessage[]) => `${batch[0]!.partition}:${batch[0]!.offset}-${batch.at(-1)!.offset}`;
    const first: string[] = [];
    await publishReadings(sut, topic, readings(1, 30), 30);
    const failing = await sut.subscribe({
      topic,
      group: 'replay',
      fromBeginning: true,
      onMessages: async (batch) => {
        first.push(span(batch));
        throw new Error('crashed before acknowledging');
      },
    });
    await waitFor(() => first.length >= 2, 'two deliveries of the failing batch');
    await publishReadings(sut, topic, readings(1, 30), 30);
    await waitFor(() => first.length >= 3, 'a delivery after more was published');
    await failing.stop();
    // Every delivery to the failing subscriber had the same boundaries, and so does the next subscriber's first.
    expect(new Set(first).size).toBe(1);
    const next = collector();
    const spans: string[] = [];
    await subscribe({
      topic,
      group: 'replay',
      fromBeginning: true,
      onMessages: async (batch) => {
        spans.push(span(batch));
        await next.onMessages(batch);
      },
    });
    await waitFor(() => next.received.length >= 60, 'all messages');
    expect(spans[0]).toBe(first[0]);
    expect(next.received.map((r) => r.seq)).toEqual([...Array(30).keys(), ...Array(30).keys()]);
  });

  it('starts a new group at the end unless it asks for the beginning', async () => {
    const topic = topicName();
    const early = collector();
    await subscribe({
      topic,
      group: 'early',
      fromBeginning: true,
      onMessages: early.onMessages,
    });
    await sut.publish(topic, [{ key: 'd', value: { device: 'd', seq: 1 } }]);
    await waitFor(() => early.received.length === 1, 'the first message');

    const late = collector();
    await subscribe({ topic, group: 'late', onMessages: late.onMessages });
    await sut.publish(topic, [{ key: 'd', value: { device: 'd', seq: 2 } }]);

    // Both messages have one key: a group that started at the beginning would have had the first before this one.
    await waitFor(() => late.received.length >= 1 && early.received.length >= 2, 'the second message');
    expect(late.received.map((r) => r.seq)).toEqual([2]);
  });

  it('resumes a stopped group where it left off', async () => {
    const topic = topicName();
    const before = collector();
    const subscription = await subscribe({
      topic,
      group: 'restart',
      fromBeginning: true,
      onMessages: before.onMessages,
    });
    await publishReadings(sut, topic, readings(1, 10));
    await waitFor(() => before.received.length >= 10, 'the first ten');
    await subscription.stop();

    await publishReadings(
      sut,
      topic,
      readings(1, 20).filter((r) => r.seq >= 10),
    );
    const after = collector();
    await subscribe({
      topic,
      group: 'restart',
      fromBeginning: true,
      onMessages: after.onMessages,
    });

    // One key: a group that began again from the start would have had the first ten before these.
    await waitFor(() => after.received.length >= 10, 'the next ten');
    expect(before.received.map((r) => r.seq)).toEqual([...Array(10).keys()]);
    expect(after.received.map((r) => r.seq)).toEqual([...Array(10).keys()].map((i) => i + 10));
  });

  it('carries string, bytes and headers unchanged', async () => {
    const topic = topicName();
    const got: BusMessage[] = [];
    await subscribe({
      topic,
      group: 'raw',
      fromBeginning: true,
      onMessages: async (batch) => void got.push(...batch),
    });
    await sut.publish(topic, [
      { key: 'a', value: 'héllo', headers: { source: 'gateway-1' } },
      { key: 'a', value: Buffer.from([0, 1, 2, 255]) },
      { value: 'no key' },
    ]);
    await waitFor(() => got.length >= 3, 'three messages');
    const byKey = got.filter((m) => m.key === 'a');
    expect(Buffer.from(byKey[0]!.value).toString('utf8')).toBe('héllo');
    expect(byKey[0]!.headers).toEqual({ source: 'gateway-1' });
    expect([...byKey[1]!.value]).toEqual([0, 1, 2, 255]);
    expect(got.find((m) => m.key === null)?.value.toString()).toBe('no key');
    expect(got.every((m) => m.topic === topic && m.timestamp instanceof Date)).toBe(true);
  });
});

describe('in-process bus back-pressure', () => {
  it('makes publish wait when a topic holds its bound of unhandled messages, and drops nothing', async () => {
    const sut = createInProcessBus({
      maxInFlightPerTopic: 10,
      partitions: 2,
      maxBatchSize: 5,
    });
    const topic = topicName();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const received: Reading[] = [];
    await sut.subscribe({
      topic,
      group: 'slow',
      onMessages: async (batch) => {
        await gate;
        for (const message of batch) received.push(decodeJson<Reading>(message));
      },
    });

    let published = false;
    const publishing = publishReadings(sut, topic, readings(1, 25), 25).then(() => (published = true));
    // Back-pressure reached: the topic holds its bound while the handler is held.
    await waitUntil('the topic full', async () => (await sut.health()).detail === `full: ${topic}`, 5_000, 20);
    expect(published).toBe(false);
    expect(received).toHaveLength(0);

    release();
    await publishing;
    await waitFor(() => received.length >= 25, 'all 25', 5_000);
    expect(received.map((r) => r.seq)).toEqual([...Array(25).keys()]);
    await sut.close();
  });

  it('keeps messages published before any group exists, waiting at the bound until the first group comes', async () => {
    const sut = createInProcessBus({ maxInFlightPerTopic: 5 });
    const topic = topicName();
    let published = false;
    const publishing = publishReadings(sut, topic, readings(1, 8), 1).then(() => (published = true));
    await waitUntil('the topic full', async () => (await sut.health()).detail === `full: ${topic}`, 5_000, 20);
    expect(published).toBe(false);

    const group = collector();
    await sut.subscribe({ topic, group: 'late', onMessages: group.onMessages });
    await publishing;
    await waitFor(() => group.received.length >= 8, 'all 8', 5_000);
    expect(group.received.map((r) => r.seq)).toEqual([...Array(8).keys()]);
    await sut.close();
  });

  it('refuses to publish after close and releases waiting publishers', async () => {
    const sut = createInProcessBus({ maxInFlightPerTopic: 1 });
    const topic = topicName();
    await sut.publish(topic, [{ key: 'a', value: { n: 1 } }]);
    const waiting = sut.publish(topic, [{ key: 'a', value: { n: 2 } }]);
    await sut.close();
    await expect(waiting).rejects.toThrow('closed');
    await expect(sut.publish(topic, [{ value: { n: 3 } }])).rejects.toThrow('closed');
    expect(await sut.health()).toEqual({ ok: false, detail: 'closed' });
  });
});
