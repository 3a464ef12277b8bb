/** A numbered schema change of one owner's tables; applied once, in order, never edited once released. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Whose tables: a projection, the event store, a command-side store (claims, credentials, ...). */
export interface MigrationOwner {
  owner: string;
  /** The tables version 1 creates: a database of the release before migrations holds them already (baseline). */
  tables: readonly string[];
  migrations: readonly Migration[];
}

/** Applies what is pending of each owner, once, under a lock (infra/src/migrate). */
export type Migrate = (owners: readonly MigrationOwner[]) => Promise<void>;
