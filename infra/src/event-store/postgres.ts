import { randomUUID } from 'node:crypto';
import type { EventMetadata } from '@iot/contracts';
import type { Sql, SqlPool } from '../postgres/sql.ts';
import {
  categoryOf,
  VersionConflictError,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type StoredEvent,
  type SubscribeOptions,
  type Subscription,
} from './port.ts';

const CHANNEL = 'es_events';
const NOTIFY_INTERVAL_MS = 20;

export const eventStoreSchema = `
create table if not exists es_events (
  global_position bigint generated always as identity primary key,
  transaction_id xid8 not null default pg_current_xact_id(),
  event_id uuid not null unique,
  stream_name text not null,
  category text not null,
  stream_version int not null,
  type text not null,
  data jsonb not null,
  metadata jsonb not null,
  recorded_at timestamptz not null default clock_timestamp(),
  unique (stream_name, stream_version)
);
create index if not exists es_events_log on es_events (transaction_id, global_position);
create index if not exists es_events_category on es_events (category, transaction_id, global_position);
create or replace function es_events_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'es_events is append-only: % is not allowed', tg_op;
end $$;
drop trigger if exists es_events_append_only on es_events;
create trigger es_events_append_only before update or delete on es_events
  for each row execute function es_events_append_only();
`;

interface EventRow extends Record<string, unknown> {
  event_id: string;
  stream_name: string;
  stream_version: number;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
  xid: string;
  global_position: number;
  recorded_at: Date;
}

// `xid` is aliased so that ORDER BY transaction_id sorts by the xid8 column, not its text.
const columns = 'event_id, stream_name, stream_version, type, data, metadata, transaction_id::text as xid, global_position, recorded_at';

const toStored = (row: EventRow): StoredEvent => ({
  id: row.event_id,
  streamName: row.stream_name,
  version: row.stream_version,
  type: row.type,
  data: row.data,
  metadata: row.metadata,
  position: `${row.xid}:${row.global_position}`,
  recordedAt: row.recorded_at,
});

const parsePosition = (position: string | null | undefined): [string, number] => {
  if (!position) return ['0', 0];
  const [xid, pos] = position.split(':');
  if (!xid || pos === undefined || !/^\d+$/.test(xid) || !/^\d+$/.test(pos))
    throw new Error(`not a postgres event store position: ${position}`);
  return [xid, Number(pos)];
};

const isUniqueViolation = (error: unknown): boolean => (error as { code?: string }).code === '23505';

/**
 * The PostgreSQL event store. Each event is stamped with its transaction id (xid8); readers of the global
 * log only see rows whose transaction is below the oldest still-running one, ordered by (xid, position),
 * so an event that commits after a higher position was read is never skipped.
 */
export interface PostgresEventStoreOptions {
  pollMs?: number;
  /**
   * Connections for subscriptions' reads, so that followers of the log never queue behind the commands
   * on the main pool (default: the main pool).
   */
  subscriptionPool?: Sql;
}

export async function createPostgresEventStore(pool: SqlPool, storeOptions: PostgresEventStoreOptions = {}): Promise<EventStore> {
  await pool.query(eventStoreSchema);
  const pollMs = storeOptions.pollMs ?? 200;
  const followerPool = storeOptions.subscriptionPool ?? pool;
  const wakers = new Set<() => void>();
  const wakeLocal = () => {
    for (const wake of [...wakers]) wake();
  };
  const unlisten = await pool.listen(CHANNEL, wakeLocal);
  // NOTIFY inside every append would serialise commits on the notify queue's lock; instead, subscribers
  // in this process are woken at once and other processes get one NOTIFY per interval, outside the append.
  let notifyTimer: NodeJS.Timeout | null = null;
  const wakeSubscribers = () => {
    wakeLocal();
    notifyTimer ??= setTimeout(() => {
      notifyTimer = null;
      pool.query(`select pg_notify('${CHANNEL}', '')`).catch(() => {});
    }, NOTIFY_INTERVAL_MS);
  };

  async function currentVersion(stream: string): Promise<number> {
    const result = await pool.query<{ v: number }>('select coalesce(max(stream_version), 0) as v from es_events where stream_name = $1', [
      stream,
    ]);
    return result.rows[0]!.v;
  }

  async function append(stream: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const base = expected === 'any' ? await currentVersion(stream) : expected;
    // Versions base+1.. are taken by the unique (stream_name, stream_version) index: a writer that read an
    // older version fails there. A caller claiming a version the stream has not reached finds no row at `base`.
    const params: unknown[] = [stream, categoryOf(stream), base];
    const rows = events.map((e, i) => {
      params.push(e.id ?? randomUUID(), e.type, JSON.stringify(e.data), JSON.stringify(e.metadata));
      const p = params.length;
      return `($${p - 3}::uuid, $1, $2, $3::int + ${i + 1}, $${p - 2}, $${p - 1}::jsonb, $${p}::jsonb)`;
    });
    try {
      const result = await pool.query<EventRow>(
        `insert into es_events (event_id, stream_name, category, stream_version, type, data, metadata)
         select * from (values ${rows.join(', ')}) as v
         where $3::int = 0 or exists (select 1 from es_events where stream_name = $1 and stream_version = $3::int)
         returning ${columns}`,
        params,
        events.length <= 8 ? { prepare: `es_append_${events.length}` } : undefined,
      );
      if (result.rows.length === 0) throw new VersionConflictError(stream, expected, await currentVersion(stream));
      const stored = result.rows.map(toStored).sort((a, b) => a.version - b.version);
      wakeSubscribers();
      return { version: stored[stored.length - 1]!.version, events: stored };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (expected === 'any') return append(stream, events, expected);
      throw new VersionConflictError(stream, expected, await currentVersion(stream));
    }
  }

  async function readStream(stream: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    const params: unknown[] = [stream];
    let where = 'stream_name = $1';
    if (options.toVersion !== undefined) {
      params.push(options.toVersion);
      where += ` and stream_version <= $${params.length}`;
    }
    if (options.toTime) {
      params.push(options.toTime);
      where += ` and recorded_at <= $${params.length}`;
    }
    let limit = '';
    if (options.limit !== undefined) {
      params.push(options.limit);
      limit = ` limit $${params.length}`;
    }
    const order = options.direction === 'backwards' ? 'desc' : 'asc';
    const result = await pool.query<EventRow>(
      `select ${columns} from es_events where ${where} order by stream_version ${order}${limit}`,
      params,
      { prepare: `es_read_${params.length}_${where.length}_${order}${limit ? '_l' : ''}` },
    );
    return result.rows.map(toStored);
  }

  async function readAll(options: ReadAllOptions = {}, sql: Sql = pool): Promise<StoredEvent[]> {
    const [xid, pos] = parsePosition(options.after);
    const params: unknown[] = [xid, pos, options.limit ?? 1000];
    let category = '';
    if (options.categories?.length) {
      params.push(options.categories);
      category = ` and category = any($4::text[])`;
    }
    const result = await sql.query<EventRow>(
      `select ${columns} from es_events
       where (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
         and transaction_id < pg_snapshot_xmin(pg_current_snapshot())${category}
       order by transaction_id, global_position
       limit $3`,
      params,
      { prepare: category ? 'es_all_categories' : 'es_all' },
    );
    return result.rows.map(toStored);
  }

  function subscribe(options: SubscribeOptions): Subscription {
    let stopped = false;
    let checkpoint = options.after ?? null;
    let wake: (() => void) | null = null;
    /** Resolves true when a new append woke it, false when the time ran out. */
    const sleep = (ms: number) =>
      new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => done(false), ms);
        function done(woken = true) {
          clearTimeout(timer);
          wakers.delete(done);
          wake = null;
          resolve(woken);
        }
        wake = done;
        wakers.add(done);
      });
    const loop = (async () => {
      let misses = 0;
      const read = (after: string | null) => readAll({ after, limit: options.limit ?? 500, categories: options.categories }, followerPool);
      // The next batch is read while the handler works on this one.
      let next: Promise<StoredEvent[]> | null = null;
      while (!stopped) {
        try {
          const batch = await (next ?? read(checkpoint));
          next = null;
          if (batch.length > 0) {
            const last = batch[batch.length - 1]!.position;
            next = read(last);
            next.catch(() => {}); // a failed read is met when awaited
            await options.onEvents(batch);
            checkpoint = last;
            misses = 0;
            continue;
          }
          // Right after a wake-up the writer may still hold the snapshot's xmin back: look again soon.
          misses += 1;
          if (await sleep(misses <= 3 ? 5 * misses : pollMs)) misses = 0;
        } catch (error) {
          next = null;
          if (stopped) break;
          options.onError?.(error);
          await sleep(pollMs);
        }
      }
    })();
    return {
      async stop() {
        stopped = true;
        wake?.();
        await loop;
      },
    };
  }

  async function headPosition(): Promise<string | null> {
    const result = await pool.query<{ xid: string; global_position: number }>(
      `select transaction_id::text as xid, global_position from es_events
       where transaction_id < pg_snapshot_xmin(pg_current_snapshot())
       order by transaction_id desc, global_position desc limit 1`,
    );
    const row = result.rows[0];
    return row ? `${row.xid}:${row.global_position}` : null;
  }

  return {
    kind: 'postgres',
    append,
    readStream,
    readAll,
    subscribe,
    headPosition,
    async health() {
      try {
        await pool.query('select 1');
        return { ok: true };
      } catch (error) {
        return { ok: false, detail: (error as Error).message };
      }
    },
    async close() {
      if (notifyTimer) clearTimeout(notifyTimer);
      await unlisten();
    },
  };
}
