import type { Page, PageQuery } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';

/** A filtered, sorted, paged list over one read model: sorting only by whitelisted columns. */
export interface ListSpec {
  select: string;
  from: string;
  where: string[];
  params: unknown[];
  /** API sort name -> SQL expression. */
  sortable: Record<string, string>;
  defaultSort: string;
}

export async function pageOf<R>(db: Sql, q: PageQuery, spec: ListSpec, toRow: (r: Record<string, unknown>) => R): Promise<Page<R>> {
  const clause = spec.where.length ? `where ${spec.where.join(' and ')}` : '';
  const sortBy = q.sort && Object.hasOwn(spec.sortable, q.sort) ? spec.sortable[q.sort] : spec.defaultSort;
  const order = `${sortBy} ${q.order === 'asc' ? 'asc' : 'desc'}`;
  const count = `select count(*)::int from ${spec.from} ${clause}`;
  const n = spec.params.length;
  // One round trip: the total rides along as an uncorrelated subquery, computed once.
  const result = await db.query(
    `select ${spec.select}, (${count}) as page_total__ from ${spec.from} ${clause} order by ${order} limit $${n + 1} offset $${n + 2}`,
    [...spec.params, q.pageSize, (q.page - 1) * q.pageSize],
  );
  const total =
    (result.rows[0]?.page_total__ as number | undefined) ?? (await db.query<{ count: number }>(count, spec.params)).rows[0]!.count;
  return { rows: result.rows.map(toRow), total, page: q.page, pageSize: q.pageSize };
}

/** Adds a parameter and returns its placeholder. */
export const param = (params: unknown[], value: unknown) => `$${params.push(value)}`;

export const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : String(v));
export const isoOrNull = (v: unknown): string | null => (v == null ? null : iso(v));

/** Builds a tree from flat rows with `id` and `parentId`; rows whose parent is not in the set become roots. */
export function treeOf<T extends { id: string; parentId: string | null }>(rows: T[]): (T & { children: unknown[] })[] {
  const nodes = new Map(rows.map((r) => [r.id, { ...r, children: [] as unknown[] }]));
  const roots: (T & { children: unknown[] })[] = [];
  for (const node of nodes.values()) {
    const parent = node.parentId ? nodes.get(node.parentId) : undefined;
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}
