import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MigrationOwner } from '@iot/contracts/ports/migrations.ts';
import { createTestDatabase, type TestDatabase } from '../../../tests/harness/postgres.ts';
import { migrate } from './migrate.ts';

const widgets = (extra: MigrationOwner['migrations'] = []): MigrationOwner => ({
  owner: 'widgets',
  tables: ['widgets'],
  migrations: [{ version: 1, name: 'create', sql: 'create table widgets (id text primary key)' }, ...extra],
});
const addColour = { version: 2, name: 'colour', sql: `alter table widgets add column colour text not null default 'blue'` };

describe('numbered migrations', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase();
  });
  afterEach(async () => db.drop());

  it('applies each migration once when two processes start at the same moment', async () => {
    const results = await Promise.all([migrate(db.pool, [widgets([addColour])]), migrate(db.pool, [widgets([addColour])])]);
    expect(results.flat().sort()).toEqual(['widgets:1', 'widgets:2']);
    const rows = await db.pool.query('select owner, version, baseline from schema_migrations order by version');
    expect(rows.rows).toEqual([
      { owner: 'widgets', version: 1, baseline: false },
      { owner: 'widgets', version: 2, baseline: false },
    ]);
    expect(await migrate(db.pool, [widgets([addColour])])).toEqual([]);
  });

  it('takes tables of the release before migrations as version 1 and applies what follows', async () => {
    await db.pool.query(`create table widgets (id text primary key); insert into widgets values ('w1')`);
    expect(await migrate(db.pool, [widgets([addColour])])).toEqual(['widgets:2']);
    const rows = await db.pool.query('select id, colour from widgets');
    expect(rows.rows).toEqual([{ id: 'w1', colour: 'blue' }]);
    const baseline = await db.pool.query(`select baseline from schema_migrations where owner = 'widgets' and version = 1`);
    expect(baseline.rows[0]).toEqual({ baseline: true });
  });

  it('leaves nothing half-applied when a migration fails', async () => {
    const broken = { version: 2, name: 'broken', sql: 'alter table widgets add column x text; select 1/0' };
    await expect(migrate(db.pool, [widgets([broken])])).rejects.toThrow(/division by zero/);
    const tables = await db.pool.query(`select to_regclass('widgets') as t, to_regclass('schema_migrations') as m`);
    expect(tables.rows[0]).toEqual({ t: null, m: null });
  });
});
