import type { Page, PageQuery } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';

/** A filtered, sorted, paged list over one read model's table: sorting only by whitelisted columns. */
export interface ListSpec {
  select: string;
  from: string;
  where: string[];
  params: unknown[];
  /** API sort name -> SQL expression. */
  sortable: Record<string, string>;
  defaultSort: string;
}

/** One page of a list, its rows as `select` names them, with the total of the whole list. */
export async function pageRows<R extends Record<string, unknown>>(db: Sql, q: PageQuery, spec: ListSpec): Promise<Page<R>> {
  const clause = spec.where.length ? `where ${spec.where.join(' and ')}` : '';
  const sortBy = q.sort && Object.hasOwn(spec.sortable, q.sort) ? spec.sortable[q.sort] : spec.defaultSort;
  const order = `${sortBy} ${q.order === 'asc' ? 'asc' : 'desc'}`;
  const count = `select count(*)::int from ${spec.from} ${clause}`;
  const n = spec.params.length;
  // One round trip: the total rides along as an uncorrelated subquery, computed once.
  const result = await db.query<R & { page_total__?: number }>(
    `select ${spec.select}, (${count}) as page_total__ from ${spec.from} ${clause} order by ${order} limit $${n + 1} offset $${n + 2}`,
    [...spec.params, q.pageSize, (q.page - 1) * q.pageSize],
  );
  const total = result.rows[0]?.page_total__ ?? (await db.query<{ count: number }>(count, spec.params)).rows[0]!.count;
  for (const row of result.rows) delete row.page_total__;
  return { rows: result.rows, total, page: q.page, pageSize: q.pageSize };
}

/** Adds a parameter and returns its placeholder. */
export const param = (params: unknown[], value: unknown) => `$${params.push(value)}`;
