import { emptyDeviceTaskCounts, type DeviceTaskCounts, type FileTaskStatus, type Page, type PageQuery } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, param, type ListSpec } from './page.ts';

/**
 * The read side OTA rollouts and restart tasks share: a tasks table and a devices table (one row per device of a
 * task, with its status), named by the read module that owns them.
 */
export interface DeviceTaskTables {
  tasks: string;
  devices: string;
}

/** A page of a tenant's tasks filtered by name and status, newest first unless told. */
export async function deviceTasksPage<R extends Record<string, unknown>>(
  db: Sql,
  tables: DeviceTaskTables,
  select: string,
  sortable: Record<string, string>,
  tenantId: string,
  filter: { name?: string | undefined; status?: FileTaskStatus | undefined },
  page: PageQuery,
): Promise<Page<R>> {
  const spec: ListSpec = { select, from: tables.tasks, where: ['tenant_id = $1'], params: [tenantId], sortable, defaultSort: 'created_at' };
  if (filter.name) spec.where.push(`name ilike ${param(spec.params, `%${filter.name}%`)}`);
  if (filter.status) spec.where.push(`status = ${param(spec.params, filter.status)}`);
  return pageRows<R>(db, page, spec);
}

/** Device counts by status of each task. */
export async function deviceTaskCountsOf(db: Sql, tables: DeviceTaskTables, taskIds: string[]): Promise<Map<string, DeviceTaskCounts>> {
  const rows = await db.query<{ taskId: string; status: FileTaskStatus; n: number }>(
    `select task_id as "taskId", status, count(*)::int as n from ${tables.devices} where task_id = any($1) group by task_id, status`,
    [taskIds],
  );
  const counts = new Map(taskIds.map((id) => [id, emptyDeviceTaskCounts()]));
  for (const r of rows.rows) add(counts.get(r.taskId)!, r.status, r.n);
  return counts;
}

/** Adds `n` devices of `status` to counts. */
export function add(counts: DeviceTaskCounts, status: FileTaskStatus, n: number): DeviceTaskCounts {
  counts[status] += n;
  counts.total += n;
  return counts;
}

/** A page of one task's devices (of the tenant's task), filtered by status and `more` conditions, in `order`. */
export async function deviceTaskDevicesPage<R extends Record<string, unknown>>(
  db: Sql,
  tables: DeviceTaskTables,
  select: string,
  order: string,
  tenantId: string,
  filter: { taskId: string; status?: FileTaskStatus | undefined; more?: Record<string, unknown> },
  page: PageQuery,
): Promise<Page<R>> {
  const spec: ListSpec = {
    select,
    from: tables.devices,
    where: ['tenant_id = $1', 'task_id = $2'],
    params: [tenantId, filter.taskId],
    sortable: {},
    defaultSort: order,
  };
  if (filter.status) spec.where.push(`status = ${param(spec.params, filter.status)}`);
  for (const [column, value] of Object.entries(filter.more ?? {}))
    if (value !== undefined) spec.where.push(`${column} = ${param(spec.params, value)}`);
  return pageRows<R>(db, { ...page, order: 'asc' }, spec);
}
