import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresEventStore } from '@iot/infra/event-store/postgres.ts';
import { categoryOf, VersionConflictError, type EventStore, type StoredEvent } from '@iot/infra/event-store/port.ts';
import type { Sql, SqlPool } from '@iot/infra/postgres/sql.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';
import { event, metadata } from '../fixtures/events.ts';

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

  it("reads one tenant's events in log order up to an instant, page by page, and none of another tenant's", async () => {
    const tenant = `t-${randomUUID().slice(0, 8)}`;
    const mine = (aggregate: string) => `${aggregate}-${tenant}.${randomUUID()}`;
    const [user, device] = [mine('user'), mine('device')];
    await sut.append(user, [event('UserCreated', {}, { tenantId: tenant })], 0);
    await sut.append(uniqueStream(), [event('Elsewhere')], 0);
    await sut.append(device, [event('DeviceCreated', {}, { tenantId: tenant })], 0);
    await sleep(30);
    const cut = new Date();
    await sleep(30);
    await sut.append(device, [event('DeviceUpdated', {}, { tenantId: tenant })], 1);
    expect((await sut.readTenant(tenant)).map((e) => e.type)).toEqual(['UserCreated', 'DeviceCreated', 'DeviceUpdated']);
    expect((await sut.readTenant(tenant, { toTime: cut })).map((e) => e.type)).toEqual(['UserCreated', 'DeviceCreated']);
    const first = await sut.readTenant(tenant, { limit: 1 });
    expect(first.map((e) => e.streamName)).toEqual([user]);
    expect((await sut.readTenant(tenant, { after: first[0]!.position })).map((e) => e.type)).toEqual(['DeviceCreated', 'DeviceUpdated']);
    expect(await sut.readTenant(`t-${randomUUID().slice(0, 8)}`)).toEqual([]);
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

  it('delivers every event exactly once, in log order and each stream in order, to a subscriber', async () => {
    const head = await sut.headPosition();
    const streams = Array.from({ length: 8 }, () => uniqueStream('load'));
    const seen: StoredEvent[] = [];
    const subscription = sut.subscribe({ after: head, categories: ['load'], onEvents: async (events) => void seen.push(...events) });
    // Eight writers at once, each appending five events to its own stream one after the other.
    await Promise.all(
      streams.map(async (stream) => {
        for (let version = 0; version < 5; version++) await sut.append(stream, [event('Tick', { version })], version);
      }),
    );
    for (let waited = 0; seen.length < 40 && waited < 10_000; waited += 20) await sleep(20);
    await subscription.stop();

    expect(new Set(seen.map((e) => e.id)).size).toBe(40);
    expect(seen).toEqual(await sut.readAll({ after: head, categories: ['load'] }));
    for (const stream of streams) expect(seen.filter((e) => e.streamName === stream).map((e) => e.version)).toEqual([1, 2, 3, 4, 5]);
  });

  it('hands a subscriber only the types it follows, whole, and moves past the others without repeating them', async () => {
    const head = await sut.headPosition();
    const stream = uniqueStream('rollout');
    const seen: StoredEvent[] = [];
    const subscription = sut.subscribe({
      after: head,
      categories: ['rollout'],
      types: ['Ended'],
      onEvents: async (events) => void seen.push(...events),
    });
    // A stream of progress reports with two ends among them, and more reports after the last end.
    const types = ['Progressed', 'Progressed', 'Ended', 'Progressed', 'Ended', 'Progressed', 'Progressed'];
    for (const [i, type] of types.entries()) await sut.append(stream, [event(type, { i })], i);
    for (let waited = 0; seen.length < 2 && waited < 10_000; waited += 20) await sleep(20);
    // Time for a wrong read to hand out what it should not (a report, or an end again).
    await sleep(200);
    await subscription.stop();

    expect(seen.map((e) => [e.type, e.version, e.data.i, e.metadata.tenantId])).toEqual([
      ['Ended', 3, 2, 't1'],
      ['Ended', 5, 4, 't1'],
    ]);
  });

  it('fails only the stale append among appends made at the same moment', async () => {
    const stale = uniqueStream();
    await sut.append(stale, [event('Registered')], 0);
    const fresh = Array.from({ length: 4 }, () => uniqueStream());
    const anyStream = uniqueStream();
    await sut.append(anyStream, [event('Registered')], 0);

    const results = await Promise.allSettled([
      sut.append(fresh[0]!, [event('Registered')], 0),
      sut.append(fresh[1]!, [event('Registered'), event('Renamed')], 0),
      sut.append(stale, [event('Lost')], 0),
      sut.append(fresh[2]!, [event('Registered')], 0),
      sut.append(anyStream, [event('Renamed')], 'any'),
      sut.append(fresh[3]!, [event('Registered')], 0),
    ]);

    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    const conflict = (results[2] as PromiseRejectedResult).reason as VersionConflictError;
    expect(conflict).toBeInstanceOf(VersionConflictError);
    expect([conflict.streamName, conflict.expected, conflict.actual]).toEqual([stale, 0, 1]);
    expect((await sut.readStream(stale)).map((e) => e.type)).toEqual(['Registered']);
    expect((await sut.readStream(fresh[1]!)).map((e) => [e.version, e.type])).toEqual([
      [1, 'Registered'],
      [2, 'Renamed'],
    ]);
    for (const stream of [fresh[0]!, fresh[2]!, fresh[3]!]) expect(await sut.readStream(stream)).toHaveLength(1);
    expect((await sut.readStream(anyStream)).map((e) => e.version)).toEqual([1, 2]);
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

/** A transaction held open on a connection of its own until `commit`, to force an interleaving. */
async function openTransaction(pool: SqlPool): Promise<Sql & { commit(): Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let committed!: Promise<void>;
  const tx = await new Promise<Sql>((resolve, reject) => {
    committed = pool.transaction(async (open) => {
      resolve(open);
      await released;
    });
    committed.catch(reject);
  });
  return {
    query: (text, params) => tx.query(text, params),
    async commit() {
      release();
      await committed;
    },
  };
}

/** Inserts version 1 of a stream as another writer (another process) would, inside `tx`. */
async function insertEvent(tx: Sql, stream: string, type: string): Promise<{ xid: bigint; position: number }> {
  const { rows } = await tx.query<{ xid: string; position: number }>(
    `insert into es_events (event_id, stream_name, category, stream_version, type, data, metadata)
     values ($1, $2, $3, 1, $4, '{}', $5) returning transaction_id::text as xid, global_position as position`,
    [randomUUID(), stream, categoryOf(stream), type, JSON.stringify(metadata())],
  );
  return { xid: BigInt(rows[0]!.xid), position: rows[0]!.position };
}

const xidOf = (e: StoredEvent) => e.position.split(':')[0];

/** Resolves once `count` statements of this database wait for another transaction's row lock. */
async function waitersOnRowLocks(db: TestDatabase, count: number): Promise<void> {
  for (let waited = 0; waited < 10_000; waited += 10) {
    const { rows } = await db.pool.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock' and wait_event = 'transactionid'`,
    );
    if (rows[0]!.n >= count) return;
    await sleep(10);
  }
  throw new Error(`no statement came to wait for a row lock`);
}

describe('postgres event store: commit order and group commit', () => {
  let db: TestDatabase;
  let sut: EventStore;

  beforeAll(async () => {
    db = await createTestDatabase();
    sut = await createPostgresEventStore(db.pool, { pollMs: 10, maxBatchesInFlight: 1 });
  });
  afterAll(async () => {
    await sut?.close();
    await db?.drop();
  });

  it.each([
    { older: 'inserts first, so its event has the lower position' },
    { older: 'takes its xid first but inserts last, so its event has the higher position' },
  ])(
    'a global reader waits for the older transaction that commits last and reads both in xid order; it $older',
    async ({ older: when }) => {
      const category = `order${randomUUID().slice(0, 8)}`;
      const head = await sut.headPosition();
      const seen: StoredEvent[] = [];
      const subscription = sut.subscribe({ after: head, categories: [category], onEvents: async (events) => void seen.push(...events) });
      const older = await openTransaction(db.pool);
      const newer = await openTransaction(db.pool);

      // Given two open transactions, the older (lower xid) one committing last:
      const insertsFirst = when.startsWith('inserts first');
      const olderFirst = insertsFirst ? await insertEvent(older, `${category}-t1.a`, 'Older') : null;
      if (!insertsFirst) await older.query('select pg_current_xact_id()');
      const newerEvent = await insertEvent(newer, `${category}-t1.b`, 'Newer');
      const olderEvent = olderFirst ?? (await insertEvent(older, `${category}-t1.a`, 'Older'));
      expect(olderEvent.xid).toBeLessThan(newerEvent.xid);
      expect(olderEvent.position < newerEvent.position).toBe(insertsFirst);

      // When the newer one commits, no global reader sees its event yet, so none can move past the older one:
      await newer.commit();
      expect(await sut.readAll({ after: head, categories: [category] })).toEqual([]);
      await sleep(150); // the subscriber looks every 10 ms
      expect(seen).toEqual([]);

      // Then, once the older one commits, both are read, the older first, whatever their positions:
      await older.commit();
      const all = await sut.readAll({ after: head, categories: [category] });
      expect(all.map((e) => e.type)).toEqual(['Older', 'Newer']);
      for (let waited = 0; seen.length < 2 && waited < 5_000; waited += 10) await sleep(10);
      await subscription.stop();
      expect(seen).toEqual(all);
    },
  );

  it('gives a head that includes an append committed while an older transaction was open, once that one ends', async () => {
    const older = await openTransaction(db.pool);
    await older.query('select pg_current_xact_id()');
    const { events } = await sut.append(uniqueStream(), [event('Registered')], 0);

    let head: string | null | undefined;
    const asked = sut.headPosition().then((position) => (head = position));
    await sleep(50);
    expect(head).toBeUndefined();
    await older.commit();
    await asked;
    expect(head).toBe(events[0]!.position);
  });

  it('gives a head at once when told not to wait for running writes, and what they commit comes after it', async () => {
    const older = await openTransaction(db.pool);
    await older.query('select pg_current_xact_id()');
    const { events } = await sut.append(uniqueStream(), [event('Registered')], 0);

    // Answered while the older write is open (waiting would take until it ends), below the append it holds back.
    const head = await Promise.race([sut.headPosition({ waitForRunning: false }), sleep(1_000).then(() => 'waited')]);
    expect(head).not.toBe('waited');
    expect(head).not.toBe(events[0]!.position);
    await older.commit();
    expect((await sut.readAll({ after: head, limit: 10_000 })).map((e) => e.id)).toContain(events[0]!.id);
  });

  it('commits the appends that queued during a commit in one transaction, and a stale one fails alone', async () => {
    const stale = uniqueStream();
    await sut.append(stale, [event('Registered')], 0);
    const streams = Array.from({ length: 3 }, () => uniqueStream());

    // The first append goes at once, alone; the four made while it commits wait and go together.
    const first = sut.append(uniqueStream(), [event('Registered')], 0);
    const results = await Promise.allSettled([
      sut.append(streams[0]!, [event('Registered')], 0),
      sut.append(stale, [event('Lost')], 0),
      sut.append(streams[1]!, [event('Registered'), event('Renamed')], 0),
      sut.append(streams[2]!, [event('Registered')], 'any'),
    ]);

    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ name: 'VersionConflictError', expected: 0, actual: 1 });
    const batch = results.flatMap((r) => (r.status === 'fulfilled' ? r.value.events : []));
    expect(batch).toHaveLength(4);
    expect(new Set(batch.map(xidOf))).toEqual(new Set([xidOf(batch[0]!)]));
    expect(xidOf((await first).events[0]!)).not.toBe(xidOf(batch[0]!));
    expect((await sut.readStream(stale)).map((e) => e.type)).toEqual(['Registered']);
    for (const stored of batch) expect((await sut.readStream(stored.streamName)).map((e) => e.id)).toContain(stored.id);
  });

  it('commits the appends of one appendMany in one transaction, the first with the rest, and a stale one fails alone', async () => {
    const stale = uniqueStream();
    await sut.append(stale, [event('Registered')], 0);
    const fresh = Array.from({ length: 5 }, () => uniqueStream());

    const results = await Promise.allSettled(
      sut.appendMany([
        ...fresh.map((streamName) => ({ streamName, events: [event('Registered')], expected: 0 as const })),
        { streamName: stale, events: [event('Lost')], expected: 0 },
      ]),
    );

    expect(results.map((r) => r.status)).toEqual([...fresh.map(() => 'fulfilled'), 'rejected']);
    const batch = results.flatMap((r) => (r.status === 'fulfilled' ? r.value.events : []));
    expect(batch.map((e) => e.streamName)).toEqual(fresh);
    expect(new Set(batch.map(xidOf))).toEqual(new Set([xidOf(batch[0]!)]));
    expect((await sut.readStream(stale)).map((e) => e.type)).toEqual(['Registered']);
  });

  it('answers two appends to one stream made at the same moment in order: the first wins, the second conflicts', async () => {
    const stream = uniqueStream();
    const [first, second] = await Promise.allSettled([sut.append(stream, [event('First')], 0), sut.append(stream, [event('Second')], 0)]);
    expect(first.status).toBe('fulfilled');
    expect((second as PromiseRejectedResult).reason).toMatchObject({ name: 'VersionConflictError', expected: 0, actual: 1 });
    expect((await sut.readStream(stream)).map((e) => e.type)).toEqual(['First']);
  });

  it('fails only its own append when the database refuses one in a batch (a duplicate event id)', async () => {
    const taken = (await sut.append(uniqueStream(), [event('Registered')], 0)).events[0]!.id;
    const bystander = uniqueStream();

    void sut.append(uniqueStream(), [event('Registered')], 0);
    const [duplicate, other] = await Promise.allSettled([
      sut.append(uniqueStream(), [{ ...event('Registered'), id: taken }], 0),
      sut.append(bystander, [event('Registered')], 0),
    ]);

    expect(duplicate.status).toBe('rejected');
    expect((duplicate as PromiseRejectedResult).reason).not.toBeInstanceOf(VersionConflictError);
    expect(other.status).toBe('fulfilled');
    expect(await sut.readStream(bystander)).toHaveLength(1);
  });

  it('sorts out a batch that meets a version another process took between its check and its insert', async () => {
    const expected0 = uniqueStream();
    const anyVersion = uniqueStream();
    const bystander = uniqueStream();
    // Given another process's open transaction that wrote version 1 of two streams,
    const other = await openTransaction(db.pool);
    await insertEvent(other, expected0, 'OtherProcess');
    await insertEvent(other, anyVersion, 'OtherProcess');

    // when a batch appends to both (and to a third stream) and waits on that transaction's rows,
    void sut.append(uniqueStream(), [event('Registered')], 0);
    const settled = Promise.allSettled([
      sut.append(expected0, [event('Mine')], 0),
      sut.append(anyVersion, [event('Mine')], 'any'),
      sut.append(bystander, [event('Mine')], 0),
    ]);
    await waitersOnRowLocks(db, 1);
    await other.commit();
    const [atZero, atAny, third] = await settled;

    // then the append that expected an empty stream conflicts, 'any' goes after the other's event, the third commits.
    expect((atZero as PromiseRejectedResult).reason).toMatchObject({ name: 'VersionConflictError', expected: 0, actual: 1 });
    expect(atAny.status === 'fulfilled' && atAny.value.version).toBe(2);
    expect(third.status).toBe('fulfilled');
    expect((await sut.readStream(expected0)).map((e) => e.type)).toEqual(['OtherProcess']);
    expect((await sut.readStream(anyVersion)).map((e) => e.type)).toEqual(['OtherProcess', 'Mine']);
  });
});

describe('postgres event store: two group commits in flight', () => {
  let db: TestDatabase;
  let sut: EventStore;

  beforeAll(async () => {
    db = await createTestDatabase();
    sut = await createPostgresEventStore(db.pool, { pollMs: 10, maxBatchesInFlight: 2 });
  });
  afterAll(async () => {
    await sut?.close();
    await db?.drop();
  });

  it('commits a second batch while the first waits, and holds a later append to the first one’s stream until it is done', async () => {
    const held = uniqueStream();
    // Given another process's open transaction that wrote version 1 of a stream,
    const other = await openTransaction(db.pool);
    await insertEvent(other, held, 'OtherProcess');

    // when a batch appends to that stream and waits on the other's row,
    const first = sut.append(held, [event('Mine')], 'any');
    await waitersOnRowLocks(db, 1);
    let laterSettled = false;
    const later = sut.append(held, [event('Later')], 'any').finally(() => (laterSettled = true));

    // then appends to other streams commit meanwhile, in batches of their own, and the later append to the held stream waits,
    const bystanders = await Promise.all([
      sut.append(uniqueStream(), [event('Registered')], 0),
      sut.append(uniqueStream(), [event('Registered')], 0),
    ]);
    expect(bystanders.map((r) => r.version)).toEqual([1, 1]);
    expect((await sut.append(uniqueStream(), [event('Registered')], 0)).version).toBe(1);
    expect(laterSettled).toBe(false);

    // and once the other commits, the held stream's appends follow its event in the order they were made.
    await other.commit();
    expect((await first).version).toBe(2);
    expect((await later).version).toBe(3);
    expect((await sut.readStream(held)).map((e) => e.type)).toEqual(['OtherProcess', 'Mine', 'Later']);
  });
});

describe('postgres event store: a follower under a stream of small commits', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db?.drop());

  it('reads at most once per gathering time however many commits wake it, and misses none of their events', async () => {
    // Given a follower whose reads are counted, which gathers commits for 100 ms,
    let reads = 0;
    const counted: Sql = {
      query: (text, params, options) => {
        reads += 1;
        return db.pool.query(text, params, options);
      },
    };
    const store = await createPostgresEventStore(db.pool, { subscriptionPool: counted });
    const seen: string[] = [];
    const category = `follow${randomUUID().slice(0, 8)}`;
    const subscription = store.subscribe({
      after: await store.headPosition(),
      categories: [category],
      gatherMs: 100,
      onEvents: async (events) => void seen.push(...events.map((e) => e.streamName)),
    });
    try {
      // when 60 appends commit one after another over about 600 ms (a commit every 10 ms, each waking it),
      const streams = Array.from({ length: 60 }, (_, i) => `${category}-t1.${i}`);
      const started = performance.now();
      for (const stream of streams) {
        await store.append(stream, [event('Registered')], 0);
        await sleep(10);
      }
      const tookMs = performance.now() - started;
      // then it sees every event once, in order,
      for (let waited = 0; seen.length < streams.length && waited < 5_000; waited += 20) await sleep(20);
      expect(seen).toEqual(streams);
      // and read no more than once per 100 ms meanwhile (a read per commit would be 60; a few more for the empty
      // reads right after a wake-up, which come no sooner either).
      expect(reads).toBeLessThanOrEqual(Math.ceil(tookMs / 100) + 4);
    } finally {
      await subscription.stop();
      await store.close();
    }
  });
});
