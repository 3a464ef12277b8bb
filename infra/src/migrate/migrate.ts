import type { Migrate, MigrationOwner } from '@iot/contracts/ports/migrations.ts';
import type { SqlPool } from '@iot/contracts/ports/sql.ts';

export type { Migration, MigrationOwner } from '@iot/contracts/ports/migrations.ts';

/** The one table every start may create blindly: it records what the migrations did. */
const BOOTSTRAP = `
create table if not exists schema_migrations (
  owner text not null,
  version int not null,
  name text not null,
  baseline boolean not null default false,
  applied_at timestamptz not null default clock_timestamp(),
  primary key (owner, version)
)`;

/**
 * Applies the pending migrations of each owner in version order, in one transaction under an advisory
 * lock, so that processes starting together apply each once. An owner with no recorded migration whose
 * tables all exist was created by the release before numbered migrations: its version 1 is recorded as a
 * baseline without running.
 */
export async function migrate(db: SqlPool, owners: readonly MigrationOwner[]): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.query(`select pg_advisory_xact_lock(hashtext('device-cloud:schema_migrations'))`);
    await tx.query(BOOTSTRAP);
    const done = new Set(
      (await tx.query<{ owner: string; version: number }>('select owner, version from schema_migrations')).rows.map(
        (r) => `${r.owner}:${r.version}`,
      ),
    );
    const applied: string[] = [];
    for (const { owner, tables, migrations } of owners) {
      const sorted = [...migrations].sort((a, b) => a.version - b.version);
      sorted.forEach((m, i) => {
        if (m.version !== i + 1) throw new Error(`migrations of ${owner} must be numbered 1, 2, ...: found ${m.version} at ${i + 1}`);
      });
      const known = sorted.some((m) => done.has(`${owner}:${m.version}`));
      if (!known && sorted.length > 0 && tables.length > 0) {
        const present = await tx.query<{ n: number }>(
          'select count(*)::int as n from unnest($1::text[]) t where to_regclass(t) is not null',
          [[...tables]],
        );
        if (present.rows[0]!.n === tables.length) {
          await tx.query('insert into schema_migrations (owner, version, name, baseline) values ($1, 1, $2, true)', [
            owner,
            sorted[0]!.name,
          ]);
          done.add(`${owner}:1`);
        }
      }
      for (const m of sorted) {
        if (done.has(`${owner}:${m.version}`)) continue;
        await tx.query(m.sql);
        await tx.query('insert into schema_migrations (owner, version, name) values ($1, $2, $3)', [owner, m.version, m.name]);
        done.add(`${owner}:${m.version}`);
        applied.push(`${owner}:${m.version}`);
      }
    }
    return applied;
  });
}

/** The Migrate port over one database. */
export const migrator =
  (db: SqlPool): Migrate =>
  async (owners) => {
    await migrate(db, owners);
  };
