import type { Sql } from '@iot/infra/postgres/sql.ts';
import type { StoredEvent } from '@iot/infra/event-store/port.ts';

/**
 * A read model in PostgreSQL built from the event log. It is disposable: `rebuild` drops its tables,
 * recreates them from `schema` and replays the log from zero.
 */
export interface Projection {
  name: string;
  /** The event types it handles; others only move its checkpoint. */
  handles: readonly string[];
  /** Idempotent DDL that creates its tables. */
  schema: string;
  /** The tables it owns, dropped on rebuild. */
  tables: readonly string[];
  apply(tx: Sql, event: StoredEvent): Promise<void>;
}
