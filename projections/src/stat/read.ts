import type { EnabledStatus, Page, PageQuery, StatTaskFields, statTaskSortable } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';

/** A statistic task as the statTasks projection keeps it (rm_stat_tasks). */
export type StatTaskRecord = StatTaskFields & {
  id: string;
  tenantId: string;
  status: EnabledStatus;
  createdAt: Date;
  updatedAt: Date;
};

const TASK = `id, tenant_id as "tenantId", name, data_type as "dataType", product_id as "productId", attribute,
  stat_type as "statType", cycle, dimension, exclusion, time_zone as "timeZone", remark, status,
  created_at as "createdAt", updated_at as "updatedAt"`;

/** A statistic task of a tenant, by id. */
export async function statTaskById(db: Sql, tenantId: string, id: string): Promise<StatTaskRecord | null> {
  return (
    (await db.query<StatTaskRecord>(`select ${TASK} from rm_stat_tasks where id = $1 and tenant_id = $2`, [id, tenantId])).rows[0] ?? null
  );
}

export interface StatTaskFilter {
  /** A part of the name, any case. */
  name?: string;
  status?: EnabledStatus;
  cycle?: StatTaskFields['cycle'];
}
const sortBy = { createTime: 'created_at', name: 'lower(name)' } satisfies Record<(typeof statTaskSortable)[number], string>;

/** A page of a tenant's statistic tasks, newest first unless told. */
export async function statTasksPage(db: Sql, tenantId: string, filter: StatTaskFilter, page: PageQuery): Promise<Page<StatTaskRecord>> {
  const spec: ListSpec = {
    select: TASK,
    from: 'rm_stat_tasks',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: sortBy,
    defaultSort: 'created_at',
  };
  const { where, params } = spec;
  if (filter.name) where.push(`name ilike ${param(params, `%${filter.name}%`)}`);
  if (filter.status) where.push(`status = ${param(params, filter.status)}`);
  if (filter.cycle) where.push(`cycle = ${param(params, filter.cycle)}`);
  return pageRows<StatTaskRecord>(db, page, spec);
}

/** Every enabled task of every tenant with the given cycles: what the scheduler runs at a cycle's end. */
export async function enabledStatTasks(db: Sql, cycles: readonly StatTaskFields['cycle'][]): Promise<StatTaskRecord[]> {
  return (
    await db.query<StatTaskRecord>(`select ${TASK} from rm_stat_tasks where status = 'enabled' and cycle = any($1) order by created_at`, [
      cycles,
    ])
  ).rows;
}
