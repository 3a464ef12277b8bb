import { describe, expect, it } from 'vitest';
import {
  VersionConflictError,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type StoredEvent,
} from '@iot/contracts/ports/event-store.ts';
import type { Decider } from './decider.ts';
import { streamCache } from './handler.ts';

type CounterEvent = { type: 'Set'; data: { value: number } };
type CounterCommand = { type: 'Set'; value: number };
/** A counter: setting the value it holds records nothing. */
const counter: Decider<CounterCommand, CounterEvent, number> = {
  initialState: 0,
  evolve: (_state, event) => event.data.value,
  decide: (command, state) => (command.value === state ? [] : [{ type: 'Set', data: { value: command.value } }]),
};

/** An event store of streams in memory (append and readStream only), counting whole-stream reads. */
function memoryStore() {
  const streams = new Map<string, StoredEvent[]>();
  let position = 0;
  const counts = { wholeReads: 0 };
  const store = {
    kind: 'postgres',
    async append(stream: string, events: NewEvent[], expected: ExpectedVersion) {
      const list = streams.get(stream) ?? [];
      if (expected !== 'any' && expected !== list.length) throw new VersionConflictError(stream, expected, list.length);
      const stored = events.map((e, i) => ({
        id: `e${++position}`,
        streamName: stream,
        version: list.length + i + 1,
        type: e.type,
        data: e.data,
        metadata: e.metadata,
        position: String(position),
        recordedAt: new Date(),
      }));
      streams.set(stream, [...list, ...stored]);
      return { version: list.length + stored.length, events: stored };
    },
    async readStream(stream: string, options: { direction?: string; limit?: number } = {}) {
      const list = streams.get(stream) ?? [];
      if (options.direction === 'backwards') return list.toReversed().slice(0, options.limit ?? list.length);
      counts.wholeReads += 1;
      return list;
    },
  } as unknown as EventStore;
  return { store, counts };
}

const context = (key?: string) => ({
  tenantId: 't',
  actor: { kind: 'system' as const, id: 'test' },
  ...(key ? { idempotencyKey: key } : {}),
});

describe('streamCache', () => {
  it('reads a stream once, then decides on the kept state', async () => {
    const { store, counts } = memoryStore();
    const cache = streamCache(store, counter);
    for (let value = 1; value <= 50; value++) await cache.handle('c-t.1', { type: 'Set', value }, context());
    expect(counts.wholeReads).toBe(1);
    expect((await store.readStream('c-t.1')).length).toBe(50);
    const same = await cache.handle('c-t.1', { type: 'Set', value: 50 }, context());
    expect(same.events).toEqual([]);
  });

  it('a stream another writer moved conflicts and is decided again on what it holds', async () => {
    const { store } = memoryStore();
    const cache = streamCache(store, counter);
    await cache.handle('c-t.1', { type: 'Set', value: 1 }, context());
    await store.append('c-t.1', [{ type: 'Set', data: { value: 7 }, metadata: context() as never }], 1);
    // The kept state says 1: setting 7 would look like a change; the append conflicts and the stream says it is none.
    const result = await cache.handle('c-t.1', { type: 'Set', value: 7 }, context());
    expect(result.events).toEqual([]);
    expect(result.state).toBe(7);
    // A fresh command sees the other writer's change before it decides.
    await store.append('c-t.1', [{ type: 'Set', data: { value: 9 }, metadata: context() as never }], 2);
    expect((await cache.handle('c-t.1', { type: 'Set', value: 9 }, context(), { fresh: true })).events).toEqual([]);
    expect((await cache.state('c-t.1')).state).toBe(9);
  });

  it('a retried command (same idempotency key) applies once', async () => {
    const { store } = memoryStore();
    const cache = streamCache(store, counter);
    await cache.handle('c-t.1', { type: 'Set', value: 1 }, context('k1'));
    await cache.handle('c-t.1', { type: 'Set', value: 2 }, context());
    const retried = await cache.handle('c-t.1', { type: 'Set', value: 1 }, context('k1'));
    expect(retried.applied).toBe(false);
    expect((await store.readStream('c-t.1')).map((e) => e.data.value)).toEqual([1, 2]);
  });
});
