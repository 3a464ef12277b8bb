import { randomUUIDv7 } from 'node:crypto';
import type { EventMetadata } from '@iot/contracts';
import type { Sql } from '../postgres/sql.ts';
import {
  categoryOf,
  VersionConflictError,
  type AppendResult,
  type ExpectedVersion,
  type NewEvent,
  type StoredEvent,
  type StreamAppend,
} from './port.ts';

/**
 * Every append of a batch in one call, so one transaction and one WAL flush. The argument is
 * [{s: stream, c: category, x: expected version or null for 'any', e: [{i: id, t: type, d: data, m: metadata}]}],
 * at most one append per stream. An append whose stream's head is not the version it expects inserts nothing and so
 * returns no row: it alone fails, and no subtransaction is spent on the others. Rows go in in stream order, so that two
 * processes' batches never wait on each other in a cycle. A writer in another process that takes a version between
 * the check and the insert fails the whole call: then the appends go again one by one.
 *
 * A function, so that its plan is made once a connection (a statement planned at every batch spent most of its time
 * planning) and with sequential scans off: each stream's head must come from the end of its range in the (stream_name,
 * stream_version) index, whatever the log's size when the plan was made. The statement it replaces was prepared while
 * the log was small, and hashed an `exists` check: it read the whole log into a hash table for every batch ever after
 * (most of an OTA run's PostgreSQL time, and growing with the log).
 */
export const appendBatchFunction = `
create or replace function es_append_batch(batch jsonb)
returns table (appended_stream text, appended_version int, appended_position bigint, appended_at timestamptz, appended_xid text)
language plpgsql
set enable_seqscan = off
as $fn$
begin
  return query
  with input as (
    select a.value->>'s' as stream, a.value->>'c' as category, (a.value->>'x')::int as expected, a.value->'e' as events
    from jsonb_array_elements(batch) as a
  ), based as materialized (
    select i.stream, i.category, i.events, i.expected,
      coalesce((select max(e.stream_version) from es_events e where e.stream_name = i.stream), 0) as head
    from input i
  ), inserted as (
    insert into es_events (event_id, stream_name, category, stream_version, type, data, metadata)
    select (e.value->>'i')::uuid, b.stream, b.category, b.head + e.ordinality::int, e.value->>'t', e.value->'d', e.value->'m'
    from based b
    cross join lateral jsonb_array_elements(b.events) with ordinality as e
    where b.expected is null or b.expected = b.head
    order by b.stream, e.ordinality
    returning es_events.stream_name, es_events.stream_version, es_events.global_position, es_events.recorded_at,
      es_events.transaction_id::text
  )
  select * from inserted;
end
$fn$;`;

export const appendBatchSql = `select appended_stream as stream_name, appended_version as stream_version, appended_position as global_position,
  appended_at as recorded_at, appended_xid as xid from es_append_batch($1::jsonb)`;

interface AppendedRow extends Record<string, unknown> {
  stream_name: string;
  stream_version: number;
  global_position: number;
  recorded_at: Date;
  xid: string;
}

const isVersionTaken = (error: unknown): boolean => {
  const { code, constraint } = error as { code?: string; constraint?: string };
  return code === '23505' && constraint === 'es_events_stream_name_stream_version_key';
};

/** An append waiting for its batch; `json` is its element of the batch statement's input. */
interface QueuedAppend {
  stream: string;
  category: string;
  expected: ExpectedVersion;
  events: NewEvent[];
  ids: string[];
  data: string[];
  /**
   * The metadata as the append's events carry it, copied when appended: flat but for the actor, so two spreads copy
   * it, where a JSON parse of each event's metadata was a visible share of the progress path's profile (issue 21).
   */
  metadata: EventMetadata[];
  json: string;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

export interface GroupCommitOptions {
  /** Batches on their way at once. */
  maxBatchesInFlight: number;
  /** Appends in one batch. */
  maxBatchSize: number;
  /** Called after a batch committed at least one append, with the categories of the streams it appended to. */
  onCommitted(categories: ReadonlySet<string>): void;
}

export interface GroupCommit {
  append(stream: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult>;
  appendMany(appends: readonly StreamAppend[]): Promise<AppendResult>[];
  /** Resolves once every append made so far has been answered. */
  drain(): Promise<void>;
}

/**
 * Group commit (ARCHITECTURE.md "Event store"): appends queue in memory; while fewer than
 * `maxBatchesInFlight` batches are on their way, everything queued goes in one statement. A lone append
 * goes at once, never after a timer; under load the queue fills while a batch commits, and the next batch
 * takes it all. Each append's promise settles when its batch has committed.
 */
export function createGroupCommit(pool: Sql, options: GroupCommitOptions): GroupCommit {
  let queue: QueuedAppend[] = [];
  /** Streams with an append on its way: the next append to one waits for it, so a batch never races itself. */
  const streamsInFlight = new Set<string>();
  let batchesInFlight = 0;
  /** Batches committed whose appends are still being answered (a conflict reads the stream's version). */
  let settling = 0;
  let drained: Array<() => void> = [];

  function append(stream: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    const appended = enqueue(stream, events, expected);
    commitQueued();
    return appended;
  }

  /**
   * All queued before the first batch goes: appended one by one, the first two of a bulk import's 250 went alone, a
   * commit each (three commits per batch instead of one).
   */
  function appendMany(appends: readonly StreamAppend[]): Promise<AppendResult>[] {
    const appended = appends.map((a) => enqueue(a.streamName, a.events, a.expected));
    commitQueued();
    return appended;
  }

  function enqueue(stream: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
    if (expected !== 'any' && !(Number.isInteger(expected) && expected >= 0))
      return Promise.reject(new TypeError(`expected version must be 'any' or an integer >= 0, got ${String(expected)}`));
    return new Promise((resolve, reject) => {
      // Time-ordered (version 7): the log's and the operation log's id indexes grow at their right edge, not at random pages.
      const ids = events.map((e) => e.id ?? randomUUIDv7());
      const data = events.map((e) => JSON.stringify(e.data));
      const metadata = events.map((e) => JSON.stringify(e.metadata));
      const elements = events.map(
        (e, i) => `{"i":${JSON.stringify(ids[i])},"t":${JSON.stringify(e.type)},"d":${data[i]!},"m":${metadata[i]!}}`,
      );
      const category = categoryOf(stream);
      const head = `"s":${JSON.stringify(stream)},"c":${JSON.stringify(category)},"x":${expected === 'any' ? 'null' : expected}`;
      // A spread, then the actor replaced by its copy: an object rest (`{ actor, ...rest }`) took a slow runtime path.
      const copies = events.map(({ metadata }) => ({ ...metadata, actor: { ...metadata.actor } }));
      queue.push({
        stream,
        category,
        expected,
        events,
        ids,
        data,
        metadata: copies,
        json: `{${head},"e":[${elements.join(',')}]}`,
        resolve,
        reject,
      });
    });
  }

  /** The queued appends the next batch can take: the oldest of each stream that has none on its way. */
  function takeBatch(): QueuedAppend[] {
    const batch: QueuedAppend[] = [];
    const waiting: QueuedAppend[] = [];
    const seen = new Set<string>();
    for (const queued of queue) {
      if (batch.length < options.maxBatchSize && !streamsInFlight.has(queued.stream) && !seen.has(queued.stream)) batch.push(queued);
      else waiting.push(queued);
      seen.add(queued.stream);
    }
    queue = waiting;
    return batch;
  }

  function commitQueued(): void {
    while (batchesInFlight < options.maxBatchesInFlight && queue.length > 0) {
      const batch = takeBatch();
      if (batch.length === 0) break;
      batchesInFlight += 1;
      for (const queued of batch) streamsInFlight.add(queued.stream);
      void commitBatch(batch).then((settle) => {
        // The slot is free before the callers hear back, so that an append they make next goes at once.
        batchesInFlight -= 1;
        for (const queued of batch) streamsInFlight.delete(queued.stream);
        settling += 1;
        void settle().finally(() => {
          settling -= 1;
          commitQueued();
        });
        commitQueued();
      });
    }
    if (batchesInFlight === 0 && settling === 0 && queue.length === 0) {
      for (const resolve of drained) resolve();
      drained = [];
    }
  }

  /** Commits a batch; the returned function answers its appends (it never throws). */
  async function commitBatch(batch: QueuedAppend[]): Promise<() => Promise<void>> {
    let rows: AppendedRow[];
    try {
      const input = `[${batch.map((queued) => queued.json).join(',')}]`;
      rows = (await pool.query<AppendedRow>(appendBatchSql, [input], { prepare: 'es_append_batch' })).rows;
    } catch (error) {
      if (batch.length > 1) {
        // A version taken by another process, a duplicate event id, a value the database refuses: one by one,
        // each append meets its own fate.
        const settles: Array<() => Promise<void>> = [];
        for (const queued of batch) settles.push(await commitBatch([queued]));
        return async () => void (await Promise.all(settles.map((settle) => settle())));
      }
      const [queued] = batch as [QueuedAppend];
      if (!isVersionTaken(error)) return async () => queued.reject(error);
      if (queued.expected === 'any') return async () => void queue.unshift(queued);
      return () => rejectConflicts(batch);
    }
    if (rows.length > 0) options.onCommitted(new Set(batch.map((queued) => queued.category)));
    const byStream = new Map<string, AppendedRow[]>();
    for (const row of rows) {
      const stream = byStream.get(row.stream_name);
      if (stream) stream.push(row);
      else byStream.set(row.stream_name, [row]);
    }
    return async () => {
      const conflicts: QueuedAppend[] = [];
      for (const queued of batch) {
        const stored = byStream.get(queued.stream)?.sort((a, b) => a.stream_version - b.stream_version);
        if (stored) queued.resolve(appended(queued, stored));
        // 'any' found its version taken by a writer in another process: it goes again with the next batch.
        else if (queued.expected === 'any') queue.unshift(queued);
        else conflicts.push(queued);
      }
      if (conflicts.length > 0) await rejectConflicts(conflicts);
    };
  }

  /** A conflict reports the stream's version, read after the batch committed. */
  async function rejectConflicts(conflicts: QueuedAppend[]): Promise<void> {
    try {
      const result = await pool.query<{ stream_name: string; version: number }>(
        'select stream_name, max(stream_version) as version from es_events where stream_name = any($1::text[]) group by stream_name',
        [conflicts.map((queued) => queued.stream)],
      );
      const actual = new Map(result.rows.map((row) => [row.stream_name, row.version]));
      for (const queued of conflicts)
        queued.reject(new VersionConflictError(queued.stream, queued.expected, actual.get(queued.stream) ?? 0));
    } catch (error) {
      for (const queued of conflicts) queued.reject(error);
    }
  }

  return {
    append,
    appendMany,
    drain: () =>
      batchesInFlight === 0 && settling === 0 && queue.length === 0 ? Promise.resolve() : new Promise((resolve) => drained.push(resolve)),
  };
}

/** The stored events of an append, from what it sent and what the insert returned. */
function appended(queued: QueuedAppend, rows: AppendedRow[]): AppendResult {
  const events = rows.map((row, n): StoredEvent => {
    // Copies, as a read would hand out: the caller's objects stay its own. The data's is made when first read, since
    // most callers (a bulk import) only look at the position; the metadata's was made at append.
    let data: Record<string, unknown> | undefined;
    return {
      id: queued.ids[n]!,
      streamName: queued.stream,
      version: row.stream_version,
      type: queued.events[n]!.type,
      get data() {
        return (data ??= JSON.parse(queued.data[n]!) as Record<string, unknown>);
      },
      set data(value) {
        data = value;
      },
      metadata: queued.metadata[n]!,
      position: `${row.xid}:${row.global_position}`,
      recordedAt: row.recorded_at,
    };
  });
  return { version: events[events.length - 1]!.version, events };
}
