import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { StoredEventOf } from '@iot/contracts/ports/event-store.ts';
import type { MigrationOwner } from '@iot/contracts/ports/migrations.ts';

/**
 * A read model in PostgreSQL built from the event log. It is disposable: `rebuild` drops its tables,
 * recreates them from `schema` and replays the log from zero.
 */
export interface Projection<E extends { type: string; data: object } = { type: string; data: Record<string, unknown> }> {
  name: string;
  /** The event types it handles ('all' for every event, e.g. the operation log); others only move its checkpoint. */
  handles: readonly E['type'][] | 'all';
  /** DDL that creates its tables: version 1 of its migrations, and what a rebuild creates anew. */
  schema: string;
  /**
   * Later migrations (version 2 on) for databases whose tables an older `schema` created; `schema` already holds
   * what they add (a rebuild creates from it), so each must be idempotent (`if not exists`).
   */
  migrations?: readonly { version: number; name: string; sql: string }[];
  /** The tables it owns, dropped on rebuild. */
  tables: readonly string[];
  apply(tx: Sql, event: StoredEventOf<E>): Promise<void>;
  /**
   * Optional set-based form of `apply` for a batch of handled events in log order, for read models that
   * take high write rates; it must leave the same rows as applying them one by one.
   */
  applyBatch?(tx: Sql, events: StoredEventOf<E>[]): Promise<void>;
}

export const handlesEvent = (projection: AnyProjection, type: string): boolean =>
  projection.handles === 'all' || (projection.handles as readonly string[]).includes(type);

/** A projection of any event union, as the runner holds them side by side. */
export type AnyProjection = Projection<any>;

/** Declares a projection typed by the event union it reads (from contracts/). */
export const projection = <E extends { type: string; data: object }>(p: Projection<E>): AnyProjection => p as AnyProjection;

/** A projection's tables as numbered migrations (version 1 is its `schema`), owned by `projection:<name>`. */
export const migrationOwnerOf = (p: AnyProjection): MigrationOwner => ({
  owner: `projection:${p.name}`,
  tables: p.tables,
  migrations: [{ version: 1, name: 'create', sql: p.schema }, ...(p.migrations ?? [])],
});
