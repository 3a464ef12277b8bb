import pg from 'pg';
import type { EventMetadata } from '@iot/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../tests/harness/postgres.ts';
import { appendBatchSql } from './postgres-group-commit.ts';
import { createPostgresEventStore } from './postgres.ts';
import type { EventStore } from './port.ts';
import type { SqlPool } from '../postgres/sql.ts';

const metadata: EventMetadata = {
  tenantId: 't1',
  actor: { kind: 'system', id: 'test' },
  correlationId: 'c',
  causationId: null,
  occurredAt: '2026-01-01T00:00:00.000Z',
  schemaVersion: 1,
};
const noted = (data: Record<string, unknown> = {}) => [{ type: 'Noted', data, metadata }];
let ids = 0;
const batchOf = (stream: string, expected: number | null) =>
  JSON.stringify([
    {
      s: stream,
      c: stream.split('-')[0],
      x: expected,
      e: [{ i: `018f0000-0000-7000-8000-${String((ids += 1)).padStart(12, '0')}`, t: 'Noted', d: {}, m: metadata }],
    },
  ]);

/**
 * A connection keeps the plan the group commit's statement was first given: one made while the log was small read the
 * whole log for every batch ever after. The plan a connection made on a small log, run again once the log is large,
 * reaches es_events only through its indexes (auto_explain shows the nested statement's plan as a notice).
 */
describe('the group commit statement', () => {
  let db: TestDatabase;
  let store: EventStore;
  let client: pg.Client;
  const plans: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await createPostgresEventStore(db.pool, { pollMs: 10 });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    client.on('notice', (notice) => {
      if (notice.message?.includes('plan')) plans.push(`${notice.message}\n${notice.detail ?? ''}`);
    });
    await client.query(`load 'auto_explain'`);
    await client.query(`set auto_explain.log_min_duration = 0`);
    await client.query(`set auto_explain.log_nested_statements = on`);
    await client.query(`set auto_explain.log_level = notice`);
  });
  afterAll(async () => {
    await client?.end();
    await store?.close();
    await db?.drop();
  });

  it("looks each stream's head up in the stream index with a plan made on a small log, once the log is large", async () => {
    for (let i = 0; i < 10; i += 1) await store.append(`small-${i}`, noted({ i }), 0);
    await db.pool.query('analyze es_events');
    // More than five runs: PostgreSQL then keeps a generic plan, made for the log as it is now (ten events, analysed).
    for (let i = 0; i < 10; i += 1) await client.query({ name: 'append', text: appendBatchSql, values: [batchOf(`small-${i}`, 1)] });
    await Promise.all(
      store.appendMany(Array.from({ length: 5_000 }, (_, i) => ({ streamName: `large-${i}`, events: noted({ i }), expected: 0 }))),
    );
    plans.length = 0;
    const { rows } = await client.query({ name: 'append', text: appendBatchSql, values: [batchOf('large-7', 1)] });
    expect(rows).toMatchObject([{ stream_name: 'large-7', stream_version: 2 }]);
    const insert = plans.find((plan) => plan.includes('Insert on es_events'));
    expect(insert).toBeDefined();
    expect(insert).toContain('es_events_stream_name_stream_version_key');
    expect(insert).not.toMatch(/Seq Scan on es_events/);
  });

  it('reads the log and its streams unprepared, so that their plans follow the size of the log', async () => {
    // A generic plan made on a small log scans it whole and sorts it: every follower's read, ever after.
    const sent: Array<{ text: string; prepare: string | null }> = [];
    const watched: SqlPool = {
      ...db.pool,
      query: (text, params, options) => {
        sent.push({ text, prepare: options?.prepare ?? null });
        return db.pool.query(text, params, options);
      },
    };
    const reader = await createPostgresEventStore(watched, { pollMs: 10 });
    try {
      await reader.append('read-check', noted(), 0);
      await reader.readAll({ limit: 10 });
      await reader.readAll({ limit: 10, categories: ['read'] });
      await reader.readStream('read-check');
      await reader.readStream('read-check', { direction: 'backwards', limit: 1 });
      await reader.readStream('read-check', { toVersion: 1 });
      await reader.readTenant('t1', { limit: 10 });
      const reads = sent.filter(({ text }) => /from es_events|from \(/.test(text) && !text.includes('es_append_batch'));
      expect(reads.length).toBeGreaterThanOrEqual(6);
      // The head's plan is the index's end whatever the log's size; every other read is planned at each call.
      expect(reads.filter(({ prepare }) => prepare !== null).map(({ prepare }) => prepare)).toEqual([]);
    } finally {
      await reader.close();
    }
  });

  it('refuses an append whose expected version is not the head, and takes the others of its batch', async () => {
    await store.append('head-check', noted(), 0);
    const [stale, fresh] = await Promise.allSettled(
      store.appendMany([
        { streamName: 'head-check', events: noted({ n: 'stale' }), expected: 0 },
        { streamName: 'head-check-2', events: noted(), expected: 0 },
      ]),
    );
    expect(stale!.status).toBe('rejected');
    expect(fresh!.status).toBe('fulfilled');
    const next = await store.append('head-check', noted({ n: 'next' }), 1);
    expect(next.events[0]!.version).toBe(2);
    expect((await store.readStream('head-check')).map((e) => e.data)).toEqual([{}, { n: 'next' }]);
  });

  it('sends a follower of a few types only their rows, never the others', async () => {
    const received: number[] = [];
    const watched: SqlPool = {
      ...db.pool,
      query: <R extends Record<string, unknown>>(text: string, params?: unknown[], options?: { prepare?: string }) => {
        const result = db.pool.query<R>(text, params, options);
        if (text.includes('horizon')) void result.then(({ rows }) => received.push(rows.length));
        return result;
      },
    };
    const follower = await createPostgresEventStore(db.pool, { pollMs: 10, subscriptionPool: watched });
    try {
      const seen: string[] = [];
      const subscription = follower.subscribe({
        after: await follower.headPosition(),
        categories: ['typed'],
        types: ['Ended'],
        onEvents: async (events) => void seen.push(...events.map((e) => `${e.type}:${String(e.data.n)}`)),
      });
      // 400 reports and two ends, some in one batch, some alone.
      await Promise.all(
        follower.appendMany(
          Array.from({ length: 200 }, (_, n) => ({
            streamName: `typed-${n}`,
            events: [{ type: 'Progressed', data: { n }, metadata }],
            expected: 0,
          })),
        ),
      );
      await follower.append('typed-end', [{ type: 'Ended', data: { n: 1 }, metadata }], 0);
      for (let n = 0; n < 200; n += 1) await follower.append(`typed-${n}`, [{ type: 'Progressed', data: { n }, metadata }], 1);
      await follower.append('typed-end', [{ type: 'Ended', data: { n: 2 }, metadata }], 1);
      for (let waited = 0; seen.length < 2 && waited < 5_000; waited += 10) await new Promise((r) => setTimeout(r, 10));
      const reads = received.length;
      await new Promise((r) => setTimeout(r, 100));
      await subscription.stop();

      expect(seen).toEqual(['Ended:1', 'Ended:2']);
      // Each read sends its matches, or one row of nothing but the horizon: never a report.
      expect(received.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(received.length + 2);
      expect(reads).toBeGreaterThan(0);
    } finally {
      await follower.close();
    }
  });
});
