import { setTimeout as delay } from 'node:timers/promises';
import type { EventMetadata } from '@iot/contracts';
import type { Sql, SqlPool } from '../postgres/sql.ts';
import { migrate } from '../migrate/migrate.ts';
import { appendBatchFunction, createGroupCommit } from './postgres-group-commit.ts';
import type {
  EventStore,
  ReadAllOptions,
  ReadStreamOptions,
  ReadTenantOptions,
  StoredEvent,
  SubscribeOptions,
  Subscription,
} from './port.ts';

const CHANNEL = 'es_events';
const NOTIFY_INTERVAL_MS = 20;
const HEAD_WAIT_MS = 2_000;

export const eventStoreSchema = `
create table es_events (
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
create index es_events_log on es_events (transaction_id, global_position);
create index es_events_category on es_events (category, transaction_id, global_position);
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
const allColumns = 'event_id, stream_name, stream_version, type, data, metadata, transaction_id::text as xid, global_position, recorded_at';

interface HeadRow extends Record<string, unknown> {
  head: string | null;
  xmax: string;
  settled: boolean;
}

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

/**
 * Positions of the next page of some categories' rows (`$4`, or `$<n>` when given), each category from its own index
 * range, merged on positions alone; `filter` narrows each range.
 */
const categoryPage = (filter: string, categoriesParam = 4) => `
  select e.transaction_id as page_xid, e.global_position as page_position from unnest($${categoriesParam}::text[]) as c(name)
  cross join lateral (
    select transaction_id, global_position from es_events
    where category = c.name ${filter} and (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
      and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
    order by transaction_id, global_position
    limit $3) as e
  order by e.transaction_id, e.global_position
  limit $3`;

/** Whether a position is past another (null: the start of the log). */
const isAfter = (position: string, than: string | null): boolean => {
  const [xid, pos] = parsePosition(position);
  const [thanXid, thanPos] = parsePosition(than);
  const a = BigInt(xid);
  const b = BigInt(thanXid);
  return a !== b ? a > b : pos > thanPos;
};

export interface PostgresEventStoreOptions {
  pollMs?: number;
  /**
   * Group commits (and group reads) on their way at once (default 2). A lone append is sent at once; the
   * appends that arrive meanwhile wait and go together in the next batch. PostgreSQL flushes its WAL one
   * flush at a time, so a second batch in flight overlaps its inserts with the first one's flush: with one, the
   * process waited on PostgreSQL 44-49% of an ota-bookkeeping run while every report queued behind one batch.
   * Two batches never hold the same stream, so each stream's appends still commit in order.
   */
  maxBatchesInFlight?: number;
  /** Appends in one group commit (default 500). */
  maxBatchSize?: number;
  /**
   * Connections for subscriptions' reads, so that followers of the log never queue behind the commands
   * on the main pool (default: the main pool).
   */
  subscriptionPool?: Sql;
}

/**
 * The PostgreSQL event store. Each event is stamped with its transaction id (xid8); readers of the global
 * log only see rows whose transaction is below the oldest still-running one, ordered by (xid, position),
 * so an event that commits after a higher position was read is never skipped. Concurrent appends are
 * group-committed: one statement, one transaction and one WAL flush for every append queued meanwhile.
 */
export async function createPostgresEventStore(pool: SqlPool, storeOptions: PostgresEventStoreOptions = {}): Promise<EventStore> {
  await migrate(pool, [
    {
      owner: 'event-store',
      tables: ['es_events'],
      migrations: [
        { version: 1, name: 'create', sql: eventStoreSchema },
        // An auditor replays one tenant: its events in log order without reading the others'.
        {
          version: 2,
          name: 'tenant index',
          sql: `create index if not exists es_events_tenant on es_events ((metadata->>'tenantId'), transaction_id, global_position)`,
        },
        { version: 3, name: 'group commit function', sql: appendBatchFunction },
      ],
    },
  ]);
  const pollMs = storeOptions.pollMs ?? 200;
  const followerPool = storeOptions.subscriptionPool ?? pool;
  const maxBatchesInFlight = storeOptions.maxBatchesInFlight ?? 2;
  /**
   * Sleeping subscriptions, each with what wakes it: a commit to one of its categories (none: every commit), or while
   * it looks again soon after a wake-up, any commit (another one's may have held the snapshot back), told apart.
   */
  const wakers = new Map<(relevant: boolean) => void, { categories: ReadonlySet<string> | null; anyCommit: boolean }>();
  /** Wakes the subscriptions a commit to these categories concerns (unknown, another process's: every one). */
  const wakeLocal = (categories?: ReadonlySet<string>) => {
    for (const [wake, waker] of [...wakers]) {
      const relevant = !categories || !waker.categories || [...categories].some((c) => waker.categories!.has(c));
      if (relevant || waker.anyCommit) wake(relevant);
    }
  };
  const unlisten = await pool.listen(CHANNEL, () => wakeLocal());
  // NOTIFY inside every append would serialise commits on the notify queue's lock; instead, subscribers
  // in this process are woken at once and other processes get one NOTIFY per interval, outside the append.
  let notifyTimer: NodeJS.Timeout | null = null;
  // A follower of other categories is not woken to read nothing: at thousands of OTA reports a second, every commit
  // woke every follower (the principals', the device changes') into a read, five reads a commit (issue 21).
  const wakeSubscribers = (categories: ReadonlySet<string>) => {
    wakeLocal(categories);
    notifyTimer ??= setTimeout(() => {
      notifyTimer = null;
      pool.query(`select pg_notify('${CHANNEL}', '')`).catch(() => {});
    }, NOTIFY_INTERVAL_MS);
  };
  const groupCommit = createGroupCommit(pool, {
    maxBatchesInFlight,
    maxBatchSize: storeOptions.maxBatchSize ?? 500,
    onCommitted: wakeSubscribers,
  });

  /** Whole-stream reads waiting for the next group read, by stream. */
  let readQueue = new Map<string, Array<{ resolve(events: StoredEvent[]): void; reject(error: unknown): void }>>();
  let readsInFlight = 0;

  /**
   * Loading an aggregate is the other half of every command: concurrent whole-stream reads share one
   * statement. A read queued after an append resolved is sent after it committed, so it sees it.
   */
  function readWholeStream(stream: string): Promise<StoredEvent[]> {
    return new Promise((resolve, reject) => {
      const waiting = readQueue.get(stream);
      if (waiting) waiting.push({ resolve, reject });
      else readQueue.set(stream, [{ resolve, reject }]);
      readQueued();
    });
  }

  function readQueued(): void {
    while (readsInFlight < maxBatchesInFlight && readQueue.size > 0) {
      const reads = readQueue;
      readQueue = new Map();
      readsInFlight += 1;
      void readGroup(reads).finally(() => {
        readsInFlight -= 1;
        readQueued();
      });
    }
  }

  async function readGroup(reads: typeof readQueue): Promise<void> {
    try {
      // Not prepared: a generic plan made while the table was small would scan it whole ever after.
      const result = await pool.query<EventRow>(
        `select ${allColumns} from es_events where stream_name = any($1::text[]) order by stream_name, stream_version`,
        [[...reads.keys()]],
      );
      const rows = new Map<string, EventRow[]>();
      for (const row of result.rows) {
        const stream = rows.get(row.stream_name);
        if (stream) stream.push(row);
        else rows.set(row.stream_name, [row]);
      }
      for (const [stream, waiting] of reads) for (const read of waiting) read.resolve((rows.get(stream) ?? []).map(toStored));
    } catch (error) {
      for (const waiting of reads.values()) for (const read of waiting) read.reject(error);
    }
  }

  async function readStream(stream: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    if (options.toVersion === undefined && !options.toTime && options.limit === undefined && options.direction !== 'backwards')
      return readWholeStream(stream);
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
    // Not prepared: a generic plan made while the table was small scans it whole ever after (postgres-plans.int.test.ts).
    const result = await pool.query<EventRow>(
      `select ${allColumns} from es_events where ${where} order by stream_version ${order}${limit}`,
      params,
    );
    return result.rows.map(toStored);
  }

  async function readAll(options: ReadAllOptions = {}): Promise<StoredEvent[]> {
    return (await readAllRows(options)).map(toStored);
  }

  /** The global log's rows after a position (of some categories), the rows of settled transactions only. */
  async function readAllRows(options: ReadAllOptions = {}, sql: Sql = pool): Promise<EventRow[]> {
    const [xid, pos] = parsePosition(options.after);
    const params: unknown[] = [xid, pos, options.limit ?? 1000];
    const categories = options.categories?.length ? [...new Set(options.categories)] : null;
    if (categories) {
      params.push(categories);
      // Each category from its own index range, then merged: a filter over the whole log walked every event of other
      // categories since the checkpoint, on every poll of a follower of rare ones (the principals' cache, ingest's device
      // changes). The ranges are merged on positions alone and only the page's rows are then read whole: merged whole,
      // every row of every range was copied, data and all, into a sort (most of PostgreSQL's time while the OTA file
      // look-up caught up after a run of reports). Not prepared: a generic plan made while the table was small would
      // scan it whole.
      const result = await sql.query<EventRow>(
        `select ${allColumns} from (${categoryPage('')}) as page
         join es_events on es_events.global_position = page.page_position
         order by page.page_xid, page.page_position`,
        params,
      );
      return result.rows;
    }
    // Not prepared: a generic plan made while the table was small would scan it whole and sort it, every read ever after.
    const result = await sql.query<EventRow>(
      `select ${allColumns} from es_events
       where (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
         and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
       order by transaction_id, global_position
       limit $3`,
      params,
    );
    return result.rows;
  }

  /**
   * A follower's page of only the types it follows, and the horizon its read covered: the oldest transaction still
   * running when it read. Every row below the horizon was looked at, so when the page is not full the follower's
   * checkpoint moves to the horizon, past the rows of other types, which PostgreSQL neither sends nor this process
   * parses (an OTA rollout's progress reports, read and thrown away by the OTA file look-up: 69,000 rows in a 15 s run).
   */
  async function readTypedRows(options: ReadAllOptions, types: readonly string[]): Promise<{ rows: EventRow[]; horizon: string }> {
    const [xid, pos] = parsePosition(options.after);
    const params: unknown[] = [xid, pos, options.limit ?? 1000, [...types]];
    const categories = options.categories?.length ? [...new Set(options.categories)] : null;
    if (categories) params.push(categories);
    const page = categories
      ? categoryPage('and type = any($4::text[])', 5)
      : `select transaction_id as page_xid, global_position as page_position from es_events
         where type = any($4::text[]) and (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
           and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
         order by transaction_id, global_position
         limit $3`;
    // One row at least: the horizon, with the page's rows or with nulls when none matched. Not prepared (as above).
    const result = await followerPool.query<EventRow & { horizon: string }>(
      `select pg_snapshot_xmin(pg_current_snapshot())::text as horizon, typed.* from (select 1) as one
       left join (
         select ${allColumns} from (${page}) as page
         join es_events on es_events.global_position = page.page_position
       ) as typed on true
       order by typed.xid::xid8, typed.global_position`,
      params,
    );
    const rows = result.rows.filter((row) => row.event_id !== null);
    return { rows, horizon: result.rows[0]!.horizon };
  }

  async function readTenant(tenantId: string, options: ReadTenantOptions = {}): Promise<StoredEvent[]> {
    const [xid, pos] = parsePosition(options.after);
    const result = await pool.query<EventRow>(
      `select ${allColumns} from es_events
       where metadata->>'tenantId' = $1 and (transaction_id, global_position) > ($2::text::xid8, $3::bigint)
         and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
         and ($5::timestamptz is null or recorded_at <= $5)
       order by transaction_id, global_position
       limit $4`,
      [tenantId, xid, pos, options.limit ?? 1000, options.toTime ?? null],
    );
    return result.rows.map(toStored);
  }

  function subscribe(options: SubscribeOptions): Subscription {
    let stopped = false;
    let checkpoint = options.after ?? null;
    let wake: (() => void) | null = null;
    const categories = options.categories?.length ? new Set(options.categories) : null;
    /** Resolves true when an append of its categories woke it, false when the time ran out or another's did. */
    const sleep = (ms: number, anyCommit = false) =>
      new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => done(false), ms);
        function done(relevant = true) {
          clearTimeout(timer);
          wakers.delete(done);
          wake = null;
          resolve(relevant);
        }
        wake = done;
        wakers.set(done, { categories, anyCommit });
      });
    const loop = (async () => {
      let misses = 0;
      const limit = options.limit ?? 500;
      /** When the follower may read again: at once after a full batch, `gatherMs` after one that reached the end. */
      let readyAt = 0;
      const gatherMs = options.gatherMs ?? 0;
      /** A batch: the events for the handler, and where the next read starts (null: nothing new was read). */
      const read = async (from: string | null): Promise<{ events: StoredEvent[]; last: string | null }> => {
        const wait = readyAt - Date.now();
        if (wait > 0) await delay(wait);
        const after = { after: from, limit, categories: options.categories };
        if (options.types) {
          const { rows, horizon } = await readTypedRows(after, options.types);
          readyAt = rows.length < limit ? Date.now() + gatherMs : 0;
          const last = rows.at(-1);
          // A full page ends at its last row; a shorter one covered every row below the horizon.
          const to = rows.length === limit ? `${last!.xid}:${last!.global_position}` : `${horizon}:0`;
          return { events: rows.map(toStored), last: rows.length > 0 || isAfter(to, from) ? to : null };
        }
        const rows = await readAllRows(after, followerPool);
        readyAt = rows.length < limit ? Date.now() + gatherMs : 0;
        const last = rows.at(-1);
        return { events: rows.map(toStored), last: last ? `${last.xid}:${last.global_position}` : null };
      };
      // The next batch is read while the handler works on this one.
      let next: ReturnType<typeof read> | null = null;
      while (!stopped) {
        try {
          const { events, last } = await (next ?? read(checkpoint));
          next = null;
          if (last) {
            next = read(last);
            next.catch(() => {}); // a failed read is met when awaited
            if (events.length > 0) await options.onEvents(events);
            checkpoint = last;
            misses = 0;
            continue;
          }
          // Right after a wake-up the writer may still hold the snapshot's xmin back: look again soon.
          misses += 1;
          if (await sleep(misses <= 3 ? 5 * misses : pollMs, misses <= 3)) misses = 0;
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

  /**
   * The newest position readers can reach, once every transaction running at the call has ended: an open
   * transaction (a projection's, another writer's) holds the readable log back, and a head taken meanwhile
   * would miss events committed before the call (catchUp would return before projecting them). A
   * transaction open longer than HEAD_WAIT_MS is waited for no more.
   */
  async function headPosition({ waitForRunning = true }: { waitForRunning?: boolean } = {}): Promise<string | null> {
    const deadline = Date.now() + HEAD_WAIT_MS;
    let runningBelow: string | null = null;
    for (;;) {
      const { rows }: { rows: HeadRow[] } = await pool.query<HeadRow>(
        `select (select transaction_id::text || ':' || global_position from es_events
                 where transaction_id < pg_snapshot_xmin(pg_current_snapshot())
                 order by transaction_id desc, global_position desc limit 1) as head,
                pg_snapshot_xmax(pg_current_snapshot())::text as xmax,
                pg_snapshot_xmin(pg_current_snapshot()) >= coalesce($1::text::xid8, pg_snapshot_xmax(pg_current_snapshot())) as settled`,
        [runningBelow],
        { prepare: 'es_head' },
      );
      const row: HeadRow = rows[0]!;
      if (!waitForRunning || row.settled || Date.now() > deadline) return row.head;
      runningBelow ??= row.xmax;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }

  return {
    kind: 'postgres',
    append: groupCommit.append,
    appendMany: groupCommit.appendMany,
    readStream,
    readAll,
    readTenant,
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
      await groupCommit.drain();
      if (notifyTimer) clearTimeout(notifyTimer);
      await unlisten();
    },
  };
}
