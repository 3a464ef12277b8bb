import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresEventStore } from '@iot/infra/event-store/postgres.ts';
import type { EventStore, SubscribeOptions } from '@iot/infra/event-store/port.ts';
import { feedActivity, type ChannelHub } from '@iot/infra/http/channels.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';
import { event } from '../fixtures/events.ts';

/** The hub's two faces the feed uses: how many listen, and what it told them. */
function hubWith(listeners: { n: number }) {
  const told: string[] = [];
  const hub = {
    listeners: () => listeners.n,
    publish: (_name: string, _delivery: unknown, message: { stream: string }) => void told.push(message.stream),
  } as unknown as ChannelHub;
  return { hub, told };
}

describe('the activity feed (activity.live)', () => {
  let db: TestDatabase;
  let real: EventStore;
  /** The real store, counting the subscriptions opened on it: a subscription is what reads the log. */
  let store: EventStore;
  let subscriptions = 0;

  beforeAll(async () => {
    db = await createTestDatabase();
    real = await createPostgresEventStore(db.pool);
    store = {
      ...real,
      subscribe: (options: SubscribeOptions) => {
        subscriptions += 1;
        return real.subscribe(options);
      },
    };
  });
  afterAll(async () => {
    await real?.close();
    await db?.drop();
  });

  it('reads the log only while someone listens, and a first listener hears what is committed after it came', async () => {
    const listeners = { n: 0 };
    const { hub, told } = hubWith(listeners);
    const feed = await feedActivity(store, hub, 20);
    try {
      // Nobody listens: a burst of events is never read.
      for (let i = 0; i < 20; i++) await store.append(`device-t1.unheard${i}`, [event('DeviceCreated')], 'any');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(subscriptions).toBe(0);

      // Someone comes, and an event is committed before the feed's next look: it is told, the burst is not.
      listeners.n = 1;
      await store.append('device-t1.heard', [event('DeviceCreated')], 'any');
      await expect.poll(() => told, { timeout: 5_000 }).toEqual(['device-t1.heard']);
      expect(subscriptions).toBe(1);

      // The listener leaves: the reading stops, and what comes meanwhile is never read.
      listeners.n = 0;
      await new Promise((resolve) => setTimeout(resolve, 200));
      await store.append('device-t1.later', [event('DeviceCreated')], 'any');
      await new Promise((resolve) => setTimeout(resolve, 200));
      listeners.n = 1;
      await store.append('device-t1.again', [event('DeviceCreated')], 'any');
      await expect.poll(() => told, { timeout: 5_000 }).toEqual(['device-t1.heard', 'device-t1.again']);
    } finally {
      await feed.stop();
    }
  });
});
