import { createHash, randomUUID } from 'node:crypto';
import { DomainError, type Actor, type EventMetadata } from '@iot/contracts';
import { schemaVersionOf } from '@iot/contracts/upcasters.ts';
import {
  VersionConflictError,
  type AppendResult,
  type EventStore,
  type NewEvent,
  type StoredEvent,
} from '@iot/contracts/ports/event-store.ts';
import type { Decider, DomainEvent } from './decider.ts';

/** Who asks, on whose behalf, and how to recognise a retry of the same request. */
export interface CommandContext {
  tenantId: string;
  actor: Actor;
  correlationId?: string;
  causationId?: string | null;
  /** A retried request with the same key applies once. */
  idempotencyKey?: string;
  ip?: string;
  /** Told the position of the last event appended (or found, for a retry with the same key). */
  onAppended?(position: string): void;
}

export interface CommandResult<S> {
  /** The events this command appended, or the ones a previous try with the same key appended. */
  events: StoredEvent[];
  state: S;
  version: number;
  /** False when an earlier request with the same idempotency key had already applied it. */
  applied: boolean;
}

export interface HandleOptions {
  /** Schema version stamped on new events. */
  schemaVersion?: number;
  retries?: number;
}

/** An aggregate's state from its stream's events. */
function fold<E extends DomainEvent, S>(decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>, history: StoredEvent[]): S {
  // A stream holds only what its decider appended (upcast on read); the store keeps types as strings and cannot tell.
  return history.reduce((s, e) => decider.evolve(s, e as unknown as E), decider.initialState);
}

/**
 * Loads the stream, folds it, decides, appends at the version it read; on a version conflict it reloads
 * and decides again a few times, then gives up with CONFLICT (HTTP 409).
 */
export async function handleCommand<C, E extends DomainEvent, S>(
  store: EventStore,
  decider: Decider<C, E, S>,
  stream: string,
  command: C,
  context: CommandContext,
  options: HandleOptions = {},
): Promise<CommandResult<S>> {
  const retries = options.retries ?? 4;
  const correlationId = context.correlationId ?? randomUUID();
  for (let attempt = 0; ; attempt++) {
    const history = await store.readStream(stream);
    const state = fold(decider, history);
    const version = history.at(-1)?.version ?? 0;
    if (context.idempotencyKey) {
      const earlier = history.filter((e) => e.metadata.idempotencyKey === context.idempotencyKey);
      if (earlier.length > 0) {
        context.onAppended?.(earlier.at(-1)!.position);
        return { events: earlier, state, version, applied: false };
      }
    }
    const decided = decider.decide(command, state);
    if (decided.length === 0) return { events: [], state, version, applied: true };
    const metadata = metadataOf(context, correlationId, options);
    try {
      const appended = await store.append(stream, newEvents(decided, metadata), version);
      const next = decided.reduce((s, e) => decider.evolve(s, e), state);
      context.onAppended?.(appended.events.at(-1)!.position);
      return { events: appended.events, state: next, version: appended.version, applied: true };
    } catch (error) {
      if (!(error instanceof VersionConflictError)) throw error;
      if (attempt >= retries) throw new DomainError('CONFLICT');
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * (attempt + 1)));
    }
  }
}

/** The metadata of the events one command appends. */
function metadataOf(
  context: CommandContext,
  correlationId: string,
  options: HandleOptions,
): Omit<EventMetadata, 'schemaVersion'> & { schemaVersion?: number } {
  return {
    tenantId: context.tenantId,
    actor: context.actor,
    correlationId,
    causationId: context.causationId ?? null,
    occurredAt: new Date().toISOString(),
    ...(options.schemaVersion === undefined ? {} : { schemaVersion: options.schemaVersion }),
    ...(context.idempotencyKey ? { idempotencyKey: context.idempotencyKey } : {}),
    ...(context.ip ? { ip: context.ip } : {}),
  };
}

/** Each event is stamped with its type's current schema version (unless the caller named one). */
const newEvents = (events: DomainEvent[], metadata: ReturnType<typeof metadataOf>): NewEvent[] =>
  events.map((e) => ({
    type: e.type,
    data: e.data as Record<string, unknown>,
    metadata: { ...metadata, schemaVersion: metadata.schemaVersion ?? schemaVersionOf(e.type) },
  }));

/**
 * Decides a command on a stream that cannot exist yet (a fresh random id) and appends it at version 0 without
 * reading it first: what a bulk create runs many of at once. A stream that exists after all fails the append
 * with VersionConflictError; an idempotency key is not looked for.
 */
export async function handleNewStream<C, E extends DomainEvent, S>(
  store: EventStore,
  decider: Decider<C, E, S>,
  stream: string,
  command: C,
  context: CommandContext,
  options: HandleOptions = {},
): Promise<CommandResult<S>> {
  const decided = decider.decide(command, decider.initialState);
  if (decided.length === 0) return { events: [], state: decider.initialState, version: 0, applied: true };
  const { idempotencyKey: _key, ...fresh } = context;
  const appended = await store.append(stream, newEvents(decided, metadataOf(fresh, context.correlationId ?? randomUUID(), options)), 0);
  return freshStreamResult(decider, decided, appended, context);
}

/** A fresh stream's result once its events are appended: they, the state they make, its version. */
function freshStreamResult<E extends DomainEvent, S>(
  decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>,
  decided: E[],
  appended: AppendResult,
  context: CommandContext,
): CommandResult<S> {
  context.onAppended?.(appended.events.at(-1)!.position);
  return {
    events: appended.events,
    state: decided.reduce((s, e) => decider.evolve(s, e), decider.initialState),
    version: appended.version,
    applied: true,
  };
}

/**
 * `handleNewStream` for many fresh streams at once: every append handed to the store together, so that it commits
 * them as one (a bulk import's batch); each result settles on its own, in the order given.
 */
export function handleNewStreams<C, E extends DomainEvent, S>(
  store: EventStore,
  decider: Decider<C, E, S>,
  commands: readonly { stream: string; command: C }[],
  context: CommandContext,
  options: HandleOptions = {},
): Promise<CommandResult<S>>[] {
  const { idempotencyKey: _key, ...fresh } = context;
  const metadata = metadataOf(fresh, context.correlationId ?? randomUUID(), options);
  const decided = commands.map(({ command }) => decider.decide(command, decider.initialState));
  const toAppend = commands.flatMap(({ stream }, i) =>
    decided[i]!.length === 0 ? [] : [{ streamName: stream, events: newEvents(decided[i]!, metadata), expected: 0 as const }],
  );
  const appending = store.appendMany(toAppend);
  let next = 0;
  return decided.map((events) =>
    events.length === 0
      ? Promise.resolve({ events: [], state: decider.initialState, version: 0, applied: true })
      : appending[next++]!.then((appended) => freshStreamResult(decider, events, appended, context)),
  );
}

/** Reads an aggregate's state, optionally as it was at a time or version (for auditors). */
export async function loadState<E extends DomainEvent, S>(
  store: EventStore,
  decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>,
  stream: string,
  at: { toTime?: Date; toVersion?: number } = {},
): Promise<{ state: S; version: number }> {
  const history = await store.readStream(stream, at);
  return {
    state: fold(decider, history),
    version: history.at(-1)?.version ?? 0,
  };
}

/**
 * The id of an aggregate a create command makes: derived from the idempotency key when there is one,
 * so that a retried create lands on the same stream and applies once.
 */
export function newAggregateId(context: Pick<CommandContext, 'tenantId' | 'idempotencyKey'>): string {
  if (!context.idempotencyKey) return randomUUID();
  const hex = createHash('sha256').update(`${context.tenantId}\0${context.idempotencyKey}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

interface CachedStream<S> {
  state: S;
  version: number;
  /** The idempotency keys of the stream's events. */
  keys: Set<string>;
}

/**
 * Commands on many long streams of one decider (a rollout's device streams, which take every progress report) without
 * reading a whole stream per command: each stream's folded state, version and idempotency keys are kept (the `max` most
 * recently used streams), and a command decides on them and appends at the kept version. The append's expected version
 * is the check: a stream another process wrote meanwhile conflicts, is forgotten and handled the usual way
 * (handleCommand), as is a command whose key the stream already holds (a retry) and any failed append. A read (`state`)
 * asks the store for the stream's last version only, and reloads the stream when it moved.
 */
export function streamCache<C, E extends DomainEvent, S>(store: EventStore, decider: Decider<C, E, S>, max = 20_000) {
  const streams = new Map<string, CachedStream<S>>();
  const keep = (stream: string, entry: CachedStream<S>) => {
    streams.delete(stream);
    streams.set(stream, entry);
    if (streams.size > max) streams.delete(streams.keys().next().value!);
    return entry;
  };
  const load = async (stream: string): Promise<CachedStream<S>> => {
    const history = await store.readStream(stream);
    const keys = new Set<string>();
    for (const e of history) if (e.metadata.idempotencyKey) keys.add(e.metadata.idempotencyKey);
    return keep(stream, { state: fold(decider, history), version: history.at(-1)?.version ?? 0, keys });
  };

  /** The kept entry while the stream's last version is still the kept one (one row read), else the stream loaded again. */
  const current = async (stream: string): Promise<CachedStream<S>> => {
    const entry = streams.get(stream);
    if (entry) {
      const [last] = await store.readStream(stream, { direction: 'backwards', limit: 1 });
      if ((last?.version ?? 0) === entry.version) return entry;
    }
    return load(stream);
  };

  return {
    /** The stream's current state. */
    async state(stream: string): Promise<{ state: S; version: number }> {
      const { state, version } = await current(stream);
      return { state, version };
    },

    /**
     * Handles a command on the kept state. `fresh` checks first that the stream has not moved (one row read): what a
     * command needs when another writer's change could make it a no-op wrongly (a conflict only shows on an append).
     */
    async handle(
      stream: string,
      command: C,
      context: CommandContext,
      options: HandleOptions & { fresh?: boolean } = {},
    ): Promise<CommandResult<S>> {
      const entry = options.fresh ? await current(stream) : (streams.get(stream) ?? (await load(stream)));
      const key = context.idempotencyKey;
      if (key && entry.keys.has(key)) return handleCommand(store, decider, stream, command, context, options);
      const decided = decider.decide(command, entry.state);
      if (decided.length === 0) return { events: [], state: entry.state, version: entry.version, applied: true };
      const metadata = metadataOf(context, context.correlationId ?? randomUUID(), options);
      let appended: AppendResult;
      try {
        appended = await store.append(stream, newEvents(decided, metadata), entry.version);
      } catch (error) {
        streams.delete(stream);
        if (!(error instanceof VersionConflictError)) throw error;
        return handleCommand(store, decider, stream, command, context, options);
      }
      const state = decided.reduce((s, e) => decider.evolve(s, e), entry.state);
      if (key) entry.keys.add(key);
      keep(stream, { state, version: appended.version, keys: entry.keys });
      context.onAppended?.(appended.events.at(-1)!.position);
      return { events: appended.events, state, version: appended.version, applied: true };
    },

    /** Forgets a stream (its next command or read loads it again). */
    forget(stream: string): void {
      streams.delete(stream);
    },
  };
}
