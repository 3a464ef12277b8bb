import { randomUUID } from 'node:crypto';
import type { EventMetadata } from '@iot/contracts';
import {
  ANY,
  BACKWARDS,
  END,
  ErrorType,
  FORWARDS,
  KurrentDBClient,
  NO_STREAM,
  START,
  excludeSystemEvents,
  isCommandError,
  jsonEvent,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendResult as KurrentAppendResult,
  type CurrentStreamState,
  type Filter,
  type Position,
  type ReadRevision,
  type RecordedEvent,
  type StreamState,
} from '@kurrent/kurrentdb-client';
import {
  categoryOf,
  VersionConflictError,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type ReadAllOptions,
  type ReadTenantOptions,
  type ReadStreamOptions,
  type StoredEvent,
  type SubscribeOptions,
  type Subscription,
} from './port.ts';

export interface KurrentEventStoreOptions {
  /** A KurrentDB connection string, e.g. `kurrentdb://localhost:2113?tls=false`. */
  url: string;
}

const DEFAULT_READ_LIMIT = 1000;
const DEFAULT_BATCH_SIZE = 500;
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// ---- pure mappings between our port and Kurrent's vocabulary ----

/** Our versions are 1-based with 0 = no stream; Kurrent revisions are 0-based. */
export function toStreamState(expected: ExpectedVersion): StreamState {
  if (expected === 'any') return ANY;
  if (!Number.isSafeInteger(expected) || expected < 0) {
    throw new RangeError(`expected version must be 'any' or an integer >= 0, got ${String(expected)}`);
  }
  return expected === 0 ? NO_STREAM : BigInt(expected - 1);
}

/** The 1-based version of the event at a 0-based Kurrent revision. */
export const versionOfRevision = (revision: bigint): number => Number(revision) + 1;

/** The stream version a WrongExpectedVersion error reports, or null when the server did not say. */
export function versionOfStreamState(state: CurrentStreamState | undefined): number | null {
  if (state === NO_STREAM) return 0;
  if (typeof state === 'bigint' && state >= 0n) return versionOfRevision(state);
  return null;
}

/** Positions in `$all` travel as the opaque checkpoint `"commit:prepare"`. */
export const encodePosition = (position: Position): string => `${position.commit}:${position.prepare}`;

export function decodePosition(checkpoint: string): Position {
  const match = /^(\d+):(\d+)$/.exec(checkpoint);
  if (!match) throw new TypeError(`not a KurrentDB position: "${checkpoint}" (expected "commit:prepare")`);
  return { commit: BigInt(match[1]!), prepare: BigInt(match[2]!) };
}

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

/** System streams and events (`$`-prefixed) never reach the platform. */
export const isSystemEvent = (streamId: string, type: string): boolean => streamId.startsWith('$') || type.startsWith('$');

/** The server-side filter of `$all`: the given categories' streams, else every non-system event. */
export function allFilter(categories?: string[]): Filter {
  if (categories && categories.length > 0) {
    return streamNameFilter({ prefixes: categories.map((category) => `${category}-`) });
  }
  return excludeSystemEvents();
}

/** Whether an event of `$all` belongs in a read with these categories (the server filter, checked again). */
export function isWanted(streamId: string, type: string, categories?: string[]): boolean {
  if (isSystemEvent(streamId, type)) return false;
  return !categories || categories.length === 0 || categories.includes(categoryOf(streamId));
}

// ---- the adapter ----

const asRecord = (value: unknown): Record<string, unknown> => {
  if (value instanceof Uint8Array) {
    try {
      return asRecord(JSON.parse(Buffer.from(value).toString('utf8')));
    } catch {
      return {};
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
};

function toStored(event: RecordedEvent, fallback?: Position): StoredEvent {
  const position = event.position ?? fallback;
  if (!position) throw new Error(`KurrentDB returned event ${event.id} without a log position (server older than 22.6?)`);
  return {
    id: event.id,
    streamName: event.streamId,
    version: versionOfRevision(event.revision),
    type: event.type,
    data: asRecord(event.data),
    metadata: asRecord(event.metadata) as EventMetadata,
    position: encodePosition(position),
    recordedAt: event.created,
  };
}

const isErrorOfType = (error: unknown, type: ErrorType): boolean => error instanceof Error && isCommandError(error) && error.type === type;

export function createKurrentEventStore({ url }: KurrentEventStoreOptions): EventStore {
  const client = KurrentDBClient.connectionString(url);
  const subscriptions = new Set<Subscription>();

  /** Reads a stream's events as Kurrent resolves them; a missing stream reads as empty. */
  async function* eventsOf(stream: string, fromRevision: ReadRevision, direction: typeof FORWARDS | typeof BACKWARDS, maxCount?: number) {
    try {
      const read = client.readStream(stream, {
        fromRevision,
        direction,
        maxCount: maxCount ?? Number.MAX_SAFE_INTEGER,
        requiresLeader: true,
      });
      for await (const resolved of read) {
        if (resolved.event) yield resolved.event;
      }
    } catch (error) {
      if (isErrorOfType(error, ErrorType.STREAM_NOT_FOUND)) return;
      throw error;
    }
  }

  async function currentVersion(stream: string): Promise<number> {
    for await (const event of eventsOf(stream, END, BACKWARDS, 1)) return versionOfRevision(event.revision);
    return 0;
  }

  async function append(stream: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    const streamState = toStreamState(expected);
    if (events.length === 0) {
      const version = await currentVersion(stream);
      if (expected !== 'any' && expected !== version) throw new VersionConflictError(stream, expected, version);
      return { version, events: [] };
    }
    const payload = events.map((event) => {
      const id = event.id ?? randomUUID();
      if (!UUID.test(id)) throw new TypeError(`KurrentDB event ids are UUIDs, got "${id}"`);
      return jsonEvent({ id, type: event.type, data: event.data, metadata: event.metadata });
    });
    let result: KurrentAppendResult;
    try {
      result = await client.appendToStream(stream, payload, { streamState, requiresLeader: true });
    } catch (error) {
      if (isErrorOfType(error, ErrorType.WRONG_EXPECTED_VERSION)) {
        const actual = (error as { actualState?: CurrentStreamState }).actualState;
        throw new VersionConflictError(stream, expected, versionOfStreamState(actual));
      }
      throw error;
    }
    // Only reached with `throwOnAppendFailure=false` in the connection string.
    if (!result.success) throw new VersionConflictError(stream, expected, null);

    // An append is atomic and contiguous: read our events back for their recorded time and log position.
    const first = result.nextExpectedRevision - BigInt(events.length - 1);
    const stored: StoredEvent[] = [];
    for await (const event of eventsOf(stream, first, FORWARDS, events.length)) stored.push(toStored(event, result.position));
    return { version: versionOfRevision(result.nextExpectedRevision), events: stored };
  }

  async function readStream(stream: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    const { toVersion, toTime } = options;
    const limit = options.limit ?? Number.MAX_SAFE_INTEGER;
    if (limit <= 0 || (toVersion !== undefined && toVersion < 1)) return [];
    const out: StoredEvent[] = [];
    if (options.direction === 'backwards') {
      const from = toVersion === undefined ? END : BigInt(toVersion - 1);
      for await (const event of eventsOf(stream, from, BACKWARDS, toTime ? undefined : limit)) {
        if (toVersion !== undefined && versionOfRevision(event.revision) > toVersion) continue;
        if (toTime && event.created > toTime) continue;
        out.push(toStored(event));
        if (out.length >= limit) break;
      }
      return out;
    }
    const maxCount = toTime ? undefined : Math.min(limit, toVersion ?? Number.MAX_SAFE_INTEGER);
    for await (const event of eventsOf(stream, START, FORWARDS, maxCount)) {
      if (toVersion !== undefined && versionOfRevision(event.revision) > toVersion) break;
      // Events of one stream are recorded in order: the first one after toTime ends the read.
      if (toTime && event.created > toTime) break;
      out.push(toStored(event));
      if (out.length >= limit) break;
    }
    return out;
  }

  async function readAll(options: ReadAllOptions = {}): Promise<StoredEvent[]> {
    const limit = options.limit ?? DEFAULT_READ_LIMIT;
    const { categories } = options;
    const filter = allFilter(categories);
    const out: StoredEvent[] = [];
    // Reading `$all` from a position includes the event at that position: skip up to the checkpoint.
    let after = options.after ? decodePosition(options.after) : null;
    while (out.length < limit) {
      const maxCount = limit - out.length + 1;
      let seen = 0;
      let last: Position | null = null;
      const read = client.readAll({ fromPosition: after ?? START, direction: FORWARDS, filter, maxCount });
      for await (const resolved of read) {
        seen += 1;
        const event = resolved.event;
        if (!event) continue;
        last = event.position;
        if (after && comparePositions(event.position, after) <= 0) continue;
        if (!isWanted(event.streamId, event.type, categories)) continue;
        out.push(toStored(event));
        if (out.length >= limit) break;
      }
      if (seen < maxCount || last === null) break;
      after = last;
    }
    return out;
  }

  /** One tenant's events: `$all` read page by page, kept when the metadata names the tenant (stream names hold it too). */
  async function readTenant(tenantId: string, options: ReadTenantOptions = {}): Promise<StoredEvent[]> {
    const limit = options.limit ?? DEFAULT_READ_LIMIT;
    const out: StoredEvent[] = [];
    let after = options.after ?? null;
    for (;;) {
      const page = await readAll({ after, limit: 1000 });
      for (const event of page) {
        if (event.metadata.tenantId !== tenantId) continue;
        if (options.toTime && event.recordedAt > options.toTime) continue;
        out.push(event);
        if (out.length >= limit) return out;
      }
      if (page.length < 1000) return out;
      after = page.at(-1)!.position;
    }
  }

  async function headPosition(): Promise<string | null> {
    const read = client.readAll({ fromPosition: END, direction: BACKWARDS, filter: allFilter(), maxCount: 1 });
    for await (const resolved of read) {
      if (resolved.event) return encodePosition(resolved.event.position);
    }
    return null;
  }

  function subscribe(options: SubscribeOptions): Subscription {
    const batchSize = options.limit ?? DEFAULT_BATCH_SIZE;
    const filter = allFilter(options.categories);
    let checkpoint = options.after ? decodePosition(options.after) : null;
    let stopped = false;
    let inHandler = false;
    let current: AllStreamSubscription | null = null;
    let notify: (() => void) | null = null;
    const wakeUp = () => {
      const resolve = notify;
      notify = null;
      resolve?.();
    };
    const nextSignal = () => new Promise<void>((resolve) => (notify = resolve));
    const pause = (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          notify = null;
          resolve();
        }, ms);
        notify = () => {
          clearTimeout(timer);
          resolve();
        };
      });

    /** Hands the subscription's buffered events to onEvents, one awaited batch at a time, until stopped or failed. */
    async function pump(sub: AllStreamSubscription): Promise<void> {
      let failure: unknown = null;
      let ended = false;
      // Listeners stay for the stream's life: an 'error' without a listener would crash the process.
      sub.on('error', (error) => {
        failure ??= error;
        wakeUp();
      });
      sub.on('end', () => {
        ended = true;
        wakeUp();
      });
      sub.on('close', () => {
        ended = true;
        wakeUp();
      });
      sub.on('readable', wakeUp);
      while (!stopped) {
        if (failure) throw failure;
        const batch: StoredEvent[] = [];
        let resolved: AllStreamResolvedEvent | null;
        while (batch.length < batchSize && (resolved = sub.read() as AllStreamResolvedEvent | null) !== null) {
          const event = resolved.event;
          if (!event || !isWanted(event.streamId, event.type, options.categories)) continue;
          if (options.types && !options.types.includes(event.type)) continue;
          if (checkpoint && comparePositions(event.position, checkpoint) <= 0) continue;
          batch.push(toStored(event));
        }
        if (batch.length > 0) {
          inHandler = true;
          try {
            await options.onEvents(batch);
          } finally {
            inHandler = false;
          }
          checkpoint = decodePosition(batch[batch.length - 1]!.position);
          continue;
        }
        if (ended) throw new Error('KurrentDB closed the subscription to $all');
        await nextSignal();
      }
    }

    const loop = (async () => {
      let delay = RETRY_MIN_MS;
      while (!stopped) {
        const sub = client.subscribeToAll({ fromPosition: checkpoint ?? START, filter, resolveLinkTos: false });
        current = sub;
        const before = checkpoint;
        try {
          await pump(sub);
        } catch (error) {
          if (stopped) break;
          options.onError?.(error);
          await sub.unsubscribe().catch(() => undefined);
          if (checkpoint !== before) delay = RETRY_MIN_MS;
          // Resubscribe from the last delivered event: a failed batch is delivered again.
          await pause(delay);
          delay = Math.min(delay * 2, RETRY_MAX_MS);
        }
      }
      await current?.unsubscribe().catch(() => undefined);
    })();

    const subscription: Subscription = {
      async stop() {
        stopped = true;
        subscriptions.delete(subscription);
        wakeUp();
        // Called from inside onEvents, the loop finishes once the handler returns: don't wait for ourselves.
        if (!inHandler) await loop;
      },
    };
    subscriptions.add(subscription);
    return subscription;
  }

  return {
    kind: 'kurrentdb',
    append,
    // One append per stream: each is its own write to KurrentDB, which has no cross-stream batch in this client.
    appendMany: (appends) => appends.map((a) => append(a.streamName, a.events, a.expected)),
    readStream,
    readAll,
    readTenant,
    subscribe,
    headPosition,
    async health() {
      try {
        const read = client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1, deadline: 5_000 });
        await read.next();
        return { ok: true };
      } catch (error) {
        return { ok: false, detail: error instanceof Error ? error.message : String(error) };
      }
    },
    async close() {
      await Promise.all([...subscriptions].map((subscription) => subscription.stop()));
      await client.dispose();
    },
  };
}
