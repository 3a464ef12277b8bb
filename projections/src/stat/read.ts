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
  /** The latest backfill: its range, whether it was cancelled, and (its worker's) how far it got and how it ended. */
  backfill: {
    id: string;
    from: Date;
    to: Date;
    cancelled: boolean;
    doneUntil: Date | null;
    finished: 'done' | 'cancelled' | 'failed' | null;
  } | null;
};

const TASK = `id, tenant_id as "tenantId", name, data_type as "dataType", product_id as "productId", attribute,
  stat_type as "statType", cycle, dimension, exclusion, time_zone as "timeZone", remark, status,
  created_at as "createdAt", updated_at as "updatedAt",
  case when t.backfill_id is null then null else json_build_object('id', t.backfill_id, 'from', backfill_from, 'to', backfill_to,
    'cancelled', backfill_cancelled, 'doneUntil', b.done_until, 'finished', b.finished) end as backfill`;
/** The tasks with their latest backfill's progress (stat_backfills, kept by the backfill worker: ./backfill.ts). */
const TASKS = 'rm_stat_tasks t left join stat_backfills b on b.backfill_id = t.backfill_id';
type Row = Omit<StatTaskRecord, 'backfill'> & {
  backfill: {
    id: string;
    from: string;
    to: string;
    cancelled: boolean;
    doneUntil: string | null;
    finished: 'done' | 'cancelled' | 'failed' | null;
  } | null;
};
const record = ({ backfill: b, ...task }: Row): StatTaskRecord => ({
  ...task,
  backfill: b && { ...b, from: new Date(b.from), to: new Date(b.to), doneUntil: b.doneUntil === null ? null : new Date(b.doneUntil) },
});

/** A statistic task of a tenant, by id. */
export async function statTaskById(db: Sql, tenantId: string, id: string): Promise<StatTaskRecord | null> {
  const row = (await db.query<Row>(`select ${TASK} from ${TASKS} where id = $1 and tenant_id = $2`, [id, tenantId])).rows[0];
  return row ? record(row) : null;
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
    from: TASKS,
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: sortBy,
    defaultSort: 'created_at',
  };
  const { where, params } = spec;
  if (filter.name) where.push(`name ilike ${param(params, `%${filter.name}%`)}`);
  if (filter.status) where.push(`status = ${param(params, filter.status)}`);
  if (filter.cycle) where.push(`cycle = ${param(params, filter.cycle)}`);
  const rows = await pageRows<Row>(db, page, spec);
  return { ...rows, rows: rows.rows.map(record) };
}

/** Every enabled task of every tenant with the given cycles: what the scheduler runs at a cycle's end. */
export async function enabledStatTasks(db: Sql, cycles: readonly StatTaskFields['cycle'][]): Promise<StatTaskRecord[]> {
  return (
    await db.query<Row>(`select ${TASK} from ${TASKS} where status = 'enabled' and cycle = any($1) order by created_at`, [cycles])
  ).rows.map(record);
}

/** The backfills to work on: the latest of each task, neither cancelled nor ended, oldest asked first. */
export async function pendingStatBackfills(db: Sql): Promise<StatTaskRecord[]> {
  return (
    await db.query<Row>(
      `select ${TASK} from ${TASKS} where t.backfill_id is not null and not backfill_cancelled and b.finished is null
       order by backfill_asked_at limit 100`,
    )
  ).rows.map(record);
}
