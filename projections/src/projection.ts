import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { StoredEvent } from '@iot/contracts/ports/event-store.ts';

/**
 * A read model in PostgreSQL built from the event log. It is disposable: `rebuild` drops its tables,
 * recreates them from `schema` and replays the log from zero.
 */
export interface Projection {
  name: string;
  /** The event types it handles ('all' for every event, e.g. the operation log); others only move its checkpoint. */
  handles: readonly string[] | 'all';
  /** Idempotent DDL that creates its tables. */
  schema: string;
  /** The tables it owns, dropped on rebuild. */
  tables: readonly string[];
  apply(tx: Sql, event: StoredEvent): Promise<void>;
  /**
   * Optional set-based form of `apply` for a batch of handled events in log order, for read models that
   * take high write rates; it must leave the same rows as applying them one by one.
   */
  applyBatch?(tx: Sql, events: StoredEvent[]): Promise<void>;
}

export const handlesEvent = (projection: Projection, type: string): boolean =>
  projection.handles === 'all' || projection.handles.includes(type);
