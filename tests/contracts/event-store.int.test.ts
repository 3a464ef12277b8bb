import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresEventStore } from '@iot/infra/event-store/postgres.ts';
import { VersionConflictError, type EventStore, type StoredEvent } from '@iot/infra/event-store/port.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';
import { event } from '../fixtures/events.ts';

interface Adapter {
  name: string;
  open(): Promise<{ store: EventStore; close(): Promise<void> }>;
}

const adapters: Adapter[] = [
  {
    name: 'postgres',
    async open() {
      const db: TestDatabase = await createTestDatabase();
      const store = await createPostgresEventStore(db.pool);
      return { store, close: async () => (await store.close(), await db.drop()) };
    },
  },
];

if (process.env.EVENTSTORE_URL) {
  adapters.push({
    name: 'kurrentdb',
    async open() {
      const { createKurrentEventStore } = await import('@iot/infra/event-store/kurrentdb.ts');
      const store = await createKurrentEventStore({ url: process.env.EVENTSTORE_URL! });
      return { store, close: () => store.close() };
    },
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Stream names unique to one test, so that adapters without per-suite databases stay isolated. */
const uniqueStream = (aggregate = 'device') => `${aggregate}-t1.${randomUUID()}`;

describe.each(adapters)('event store contract: $name', (adapter) => {
  let sut: EventStore;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ store: sut, close } = await adapter.open());
  });
  afterAll(async () => close?.());

  it('appends to a new stream and reads it back in order with versions from 1', async () => {
    const stream = uniqueStream();
    const result = await sut.append(stream, [event('Registered', { n: 1 }), event('Renamed', { n: 2 })], 0);
    expect(result.version).toBe(2);
    const read = await sut.readStream(stream);
    expect(read.map((e) => [e.version, e.type, e.data.n])).toEqual([
      [1, 'Registered', 1],
      [2, 'Renamed', 2],
    ]);
    expect(read[0]!.metadata.tenantId).toBe('t1');
  });

  it('reads a stream backwards, up to a version, up to a time and with a limit', async () => {
    const stream = uniqueStream();
    await sut.append(stream, [event('A'), event('B')], 0);
    await sleep(30);
    const cut = new Date();
    await sleep(30);
    await sut.append(stream, [event('C')], 2);
    expect((await sut.readStream(stream, { direction: 'backwards' })).map((e) => e.type)).toEqual(['C', 'B', 'A']);
    expect((await sut.readStream(stream, { toVersion: 2 })).map((e) => e.type)).toEqual(['A', 'B']);
    expect((await sut.readStream(stream, { toTime: cut })).map((e) => e.type)).toEqual(['A', 'B']);
    expect((await sut.readStream(stream, { direction: 'backwards', limit: 1 })).map((e) => e.type)).toEqual(['C']);
    expect(await sut.readStream(uniqueStream())).toEqual([]);
  });

  it('refuses an append at a stale version and keeps the other writer’s event', async () => {
    const stream = uniqueStream();
    await sut.append(stream, [event('Registered')], 0);
    await sut.append(stream, [event('FirstWriter')], 1);
    await expect(sut.append(stream, [event('SecondWriter')], 1)).rejects.toBeInstanceOf(VersionConflictError);
    await expect(sut.append(stream, [event('Again')], 0)).rejects.toBeInstanceOf(VersionConflictError);
    await expect(sut.append(stream, [event('Ahead')], 5)).rejects.toBeInstanceOf(VersionConflictError);
    expect((await sut.readStream(stream)).map((e) => e.type)).toEqual(['Registered', 'FirstWriter']);
  });

  it("appends at 'any' version whatever the stream holds", async () => {
    const stream = uniqueStream();
    await sut.append(stream, [event('A')], 'any');
    const result = await sut.append(stream, [event('B')], 'any');
    expect(result.version).toBe(2);
  });

  it('reads the global log from a checkpoint, filtered by category', async () => {
    const head = await sut.headPosition();
    const alarm = uniqueStream('alarm');
    const device = uniqueStream('device');
    await sut.append(alarm, [event('Raised')], 0);
    await sut.append(device, [event('Registered')], 0);
    const all = await sut.readAll({ after: head });
    expect(all.map((e) => e.streamName)).toEqual([alarm, device]);
    const onlyAlarms = await sut.readAll({ after: head, categories: ['alarm'] });
    expect(onlyAlarms.map((e) => e.streamName)).toEqual([alarm]);
    const afterFirst = await sut.readAll({ after: all[0]!.position });
    expect(afterFirst.map((e) => e.streamName)).toEqual([device]);
  });

  it('delivers every event exactly once and each stream in order to a subscriber under 16 concurrent writers', async () => {
    const head = await sut.headPosition();
    const writers = 16;
    const perWriter = 40;
    const streams = Array.from({ length: 8 }, () => uniqueStream('load'));
    const seen: StoredEvent[] = [];
    const subscription = sut.subscribe({
      after: head,
      categories: ['load'],
      onEvents: async (events) => {
        seen.push(...events);
      },
    });
    const writer = async (w: number) => {
      for (let i = 0; i < perWriter; i++) {
        const stream = streams[(w + i) % streams.length]!;
        await sleep(Math.random() * 4);
        // Writers race on shared streams: retry on conflict as a command handler would.
        for (;;) {
          const current = (await sut.readStream(stream, { direction: 'backwards', limit: 1 }))[0]?.version ?? 0;
          try {
            await sut.append(stream, [event('Tick', { w, i })], current);
            break;
          } catch (error) {
            if (!(error instanceof VersionConflictError)) throw error;
          }
        }
      }
    };
    await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
    const expected = writers * perWriter;
    for (let waited = 0; seen.length < expected && waited < 20_000; waited += 50) await sleep(50);
    await subscription.stop();

    expect(seen).toHaveLength(expected);
    expect(new Set(seen.map((e) => e.id)).size).toBe(expected);
    for (const stream of streams) {
      const versions = seen.filter((e) => e.streamName === stream).map((e) => e.version);
      expect(versions).toEqual(versions.map((_, i) => i + 1));
    }
    const ticks = new Set(seen.map((e) => `${e.data.w}:${e.data.i}`));
    expect(ticks.size).toBe(expected);
  });

  it('resumes a subscription from a checkpoint without repeating or skipping', async () => {
    const head = await sut.headPosition();
    const stream = uniqueStream('resume');
    await sut.append(stream, [event('A'), event('B'), event('C')], 0);
    const firstTwo = (await sut.readAll({ after: head, categories: ['resume'] })).slice(0, 2);
    const seen: string[] = [];
    const subscription = sut.subscribe({
      after: firstTwo[1]!.position,
      categories: ['resume'],
      onEvents: async (events) => void seen.push(...events.map((e) => e.type)),
    });
    await sut.append(stream, [event('D')], 3);
    for (let waited = 0; seen.length < 2 && waited < 5_000; waited += 20) await sleep(20);
    await subscription.stop();
    expect(seen).toEqual(['C', 'D']);
  });
});
