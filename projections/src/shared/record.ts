import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { StoredEventOf } from '@iot/contracts/ports/event-store.ts';
import { projection, type AnyProjection, type Projection } from '../projection.ts';

/** A row's columns by name; objects and arrays are written as JSON (jsonb columns). */
type Row = Record<string, unknown>;

/** What an event does to one table of a record projection; `put`, `add`, `patch` and `remove` make them. */
export type RowChange =
  | { kind: 'put' | 'add'; table: string; row: Row & { id: string } }
  | { kind: 'patch'; table: string; id: string; set: Row }
  | { kind: 'remove'; table: string; where: Row };

/** The row as the event leaves it: inserted, or every column but `id`, `tenant_id` and `created_at` replaced. */
export const put = (table: string, row: Row & { id: string }): RowChange => ({ kind: 'put', table, row });
/** The row inserted once: a replayed event leaves it as it is. */
export const add = (table: string, row: Row & { id: string }): RowChange => ({ kind: 'add', table, row });
/** Some columns of the row with this id. */
export const patch = (table: string, id: string, set: Row): RowChange => ({ kind: 'patch', table, id, set });
/** The rows whose columns equal every value given. */
export const remove = (table: string, where: Row): RowChange => ({ kind: 'remove', table, where });

const kept = new Set(['id', 'tenant_id', 'created_at']);
const valueOf = (v: unknown) => (v !== null && typeof v === 'object' && !(v instanceof Date) ? JSON.stringify(v) : v);

async function write(tx: Sql, change: RowChange): Promise<void> {
  switch (change.kind) {
    case 'put':
    case 'add': {
      const columns = Object.keys(change.row);
      const updates = columns.filter((c) => !kept.has(c)).map((c) => `${c} = excluded.${c}`);
      await tx.query(
        `insert into ${change.table} (${columns.join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')})
         on conflict (id) do ${change.kind === 'put' && updates.length ? `update set ${updates.join(', ')}` : 'nothing'}`,
        Object.values(change.row).map(valueOf),
      );
      return;
    }
    case 'patch': {
      const columns = Object.keys(change.set);
      await tx.query(`update ${change.table} set ${columns.map((c, i) => `${c} = $${i + 2}`).join(', ')} where id = $1`, [
        change.id,
        ...Object.values(change.set).map(valueOf),
      ]);
      return;
    }
    case 'remove': {
      const columns = Object.keys(change.where);
      await tx.query(
        `delete from ${change.table} where ${columns.map((c, i) => `${c} = $${i + 1}`).join(' and ')}`,
        Object.values(change.where).map(valueOf),
      );
      return;
    }
  }
}

/**
 * A read model of records an operator keeps (a screen, a diagram, a topo element): each event says which rows it puts,
 * patches or removes, and this writes them, so that the projection states what a row holds and not how SQL writes it.
 */
export const recordProjection = <E extends { type: string; data: object }>(
  spec: Omit<Projection<E>, 'apply' | 'applyBatch'> & { rows(event: StoredEventOf<E>): RowChange[] },
): AnyProjection => {
  const { rows, ...rest } = spec;
  return projection<E>({
    ...rest,
    async apply(tx, event) {
      for (const change of rows(event)) await write(tx, change);
    },
  });
};
