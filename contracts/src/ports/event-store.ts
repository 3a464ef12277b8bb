import type { EventMetadata } from '@iot/contracts';

/** An event to append: its type, its payload and the metadata every event carries. */
export interface NewEvent {
  id?: string;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
}

export interface StoredEvent {
  id: string;
  streamName: string;
  /** 1-based revision of the event within its stream. */
  version: number;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
  /** Opaque, adapter-specific position in the global log; pass it back as a checkpoint. */
  position: string;
  recordedAt: Date;
}

/**
 * The version the caller last saw: a number (0 when the stream must not exist yet),
 * or 'any' to append whatever the stream holds.
 */
export type ExpectedVersion = number | 'any';

export interface AppendResult {
  /** The stream's version after the append. */
  version: number;
  events: StoredEvent[];
}

export interface ReadStreamOptions {
  direction?: 'forwards' | 'backwards';
  /** Only events up to and including this version. */
  toVersion?: number;
  /** Only events recorded at or before this time: "what did it look like at 14:02". */
  toTime?: Date;
  /** At most this many events. */
  limit?: number;
}

export interface ReadAllOptions {
  /** Read events after this position; omit to read from the start. */
  after?: string | null;
  limit?: number;
  /** Only events of these categories (the part of the stream name before the first '-'). */
  categories?: string[];
}

export interface ReadTenantOptions {
  /** Only events recorded at or before this time: the tenant "as of" an instant. */
  toTime?: Date;
  /** Read events after this position (a page's last one); omit to read from the start. */
  after?: string | null;
  limit?: number;
}

export interface Subscription {
  stop(): Promise<void>;
}

export interface SubscribeOptions extends ReadAllOptions {
  /**
   * Only events of these types reach `onEvents`; the subscription reads past the others (of its categories) without
   * their payloads: a follower of a few kinds of a busy category (a rollout's ends among its progress reports).
   */
  types?: readonly string[];
  /**
   * Once it has read to the end of the log, the subscription reads again no sooner than this (default 0, at once),
   * however many commits wake it meanwhile: a follower that need not see each commit the moment it lands (a cache of
   * rollouts' ends) reads once per `gatherMs` under a steady stream of small commits, where it read after every one
   * (10,700 reads in a 15 s OTA run at 5,000 reports a second). A store that pushes events may ignore it.
   */
  gatherMs?: number;
  /** Handles a batch in log order; the subscription moves on once the promise resolves. */
  onEvents(events: StoredEvent[]): Promise<void>;
  onError?(error: unknown): void;
}

export class VersionConflictError extends Error {
  constructor(
    readonly streamName: string,
    readonly expected: ExpectedVersion,
    readonly actual: number | null,
  ) {
    super(`version conflict on ${streamName}: expected ${String(expected)}, actual ${String(actual)}`);
    this.name = 'VersionConflictError';
  }
}

/** One stream's part of an `appendMany`. */
export interface StreamAppend {
  streamName: string;
  events: NewEvent[];
  expected: ExpectedVersion;
}

/** The source of truth: events are appended, never updated or deleted. */
export interface EventStore {
  readonly kind: 'postgres' | 'kurrentdb';
  append(streamName: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult>;
  /**
   * Appends to many streams at once, as one commit where the store can (a bulk import's batch): each append still
   * meets its own fate (a conflict fails only its own promise), in the order given.
   */
  appendMany(appends: readonly StreamAppend[]): Promise<AppendResult>[];
  readStream(streamName: string, options?: ReadStreamOptions): Promise<StoredEvent[]>;
  /** The global log in commit order: a reader never skips an event committed later at a lower position. */
  readAll(options?: ReadAllOptions): Promise<StoredEvent[]>;
  /** One tenant's events in log order (every aggregate of it), up to an instant: what an auditor replays. */
  readTenant(tenantId: string, options?: ReadTenantOptions): Promise<StoredEvent[]>;
  /** Delivers every event after the checkpoint exactly once and in order, then follows new ones. */
  subscribe(options: SubscribeOptions): Subscription;
  /**
   * The position of the newest event visible to readAll, or null when the log is empty. By default once the writes
   * running at the call have ended, so that it covers every event committed before the call (what catching up needs);
   * `{ waitForRunning: false }` answers at once: every event committed after it still comes after it, which is all a
   * reader that must miss nothing later needs (a feed nobody listens to, moving its start).
   */
  headPosition(options?: { waitForRunning?: boolean }): Promise<string | null>;
  health(): Promise<{ ok: boolean; detail?: string }>;
  close(): Promise<void>;
}

/** Stream names are `<aggregate>-<tenantId>.<id>`; the category is the aggregate. */
export const streamName = (aggregate: string, tenantId: string, id: string): string => `${aggregate}-${tenantId}.${id}`;
export const categoryOf = (stream: string): string => stream.slice(0, stream.indexOf('-'));

/** A stored event of a known union (a projection's or a decider's): typed by `type`, with the storage details. */
export type StoredEventOf<E extends { type: string; data: object }> = E extends unknown
  ? Omit<StoredEvent, 'type' | 'data'> & { type: E['type']; data: E['data'] }
  : never;

/**
 * A guard telling the events of one union (an aggregate's) by their type; `types` names every type of the union
 * (a record, so that the compiler says when one is left out). What a typed read of a stream filters by.
 */
export function eventsOfUnion<E extends { type: string; data: object }>(types: Record<E['type'], true>) {
  return (event: StoredEvent): event is StoredEvent & StoredEventOf<E> => Object.hasOwn(types, event.type);
}

/** An aggregate's stream read as the event union that aggregate appends, told by `isOf` (an `eventsOfUnion` guard: `isDeviceEvent`...). */
export async function readStreamOf<T extends StoredEvent>(
  store: Pick<EventStore, 'readStream'>,
  stream: string,
  isOf: (event: StoredEvent) => event is T,
  options?: ReadStreamOptions,
): Promise<T[]> {
  return (await store.readStream(stream, options)).filter(isOf);
}
