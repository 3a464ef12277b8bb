import type { Page, PageQuery } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, type ListSpec } from '@iot/projections/shared/page.ts';

export { param, type ListSpec } from '@iot/projections/shared/page.ts';

/** A page of a list whose rows `toRow` makes into what the route answers. */
export async function pageOf<R>(db: Sql, q: PageQuery, spec: ListSpec, toRow: (r: Record<string, unknown>) => R): Promise<Page<R>> {
  const page = await pageRows<Record<string, unknown>>(db, q, spec);
  return { ...page, rows: page.rows.map(toRow) };
}

/** A page whose rows `toRow` makes into what the route answers. */
export const mapRows = <T, R>(page: Page<T>, toRow: (row: T) => R): Page<R> => ({ ...page, rows: page.rows.map(toRow) });

export const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : String(v));
export const isoOrNull = (v: unknown): string | null => (v == null ? null : iso(v));

/** A row with the rows below it, all the way down. */
export type Tree<T> = T & { children: Tree<T>[] };

/** Builds a tree from flat rows with `id` and `parentId`; rows whose parent is not in the set become roots. */
export function treeOf<T extends { id: string; parentId: string | null }>(rows: T[]): Tree<T>[] {
  const nodes = new Map(rows.map((r): [string, Tree<T>] => [r.id, { ...r, children: [] }]));
  const roots: Tree<T>[] = [];
  for (const node of nodes.values()) {
    const parent = node.parentId ? nodes.get(node.parentId) : undefined;
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}
