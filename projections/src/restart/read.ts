import type { FileTaskStatus, OtaTarget, Page, PageQuery, RestartCounts, restartTaskSortable } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';

/** A restart task as the restartTasks projection keeps it (rm_restart_tasks). */
export type RestartTaskRecord = {
  id: string;
  tenantId: string;
  name: string;
  target: OtaTarget;
  status: FileTaskStatus;
  taskTime: Date;
  expiry: Date;
  createdAt: Date;
  updatedAt: Date;
};

/** One device of a restart task (rm_restart_devices). */
export type RestartDeviceRecord = { deviceId: string; sn: string; status: FileTaskStatus; reason: string | null; updatedAt: Date };

const TASK = `id, tenant_id as "tenantId", name, target, status, task_time as "taskTime", expiry,
  created_at as "createdAt", updated_at as "updatedAt"`;
const DEVICE = `device_id as "deviceId", sn, status, reason, updated_at as "updatedAt"`;

/** A restart task of a tenant, by id. */
export async function restartTaskById(db: Sql, tenantId: string, id: string): Promise<RestartTaskRecord | null> {
  return (
    (await db.query<RestartTaskRecord>(`select ${TASK} from rm_restart_tasks where id = $1 and tenant_id = $2`, [id, tenantId])).rows[0] ??
    null
  );
}

const sortBy = { createTime: 'created_at', name: 'lower(name)', taskTime: 'task_time' } satisfies Record<
  (typeof restartTaskSortable)[number],
  string
>;

/** A page of a tenant's restart tasks, newest first unless told. */
export async function restartTasksPage(
  db: Sql,
  tenantId: string,
  filter: { name?: string; status?: FileTaskStatus },
  page: PageQuery,
): Promise<Page<RestartTaskRecord>> {
  const spec: ListSpec = {
    select: TASK,
    from: 'rm_restart_tasks',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: sortBy,
    defaultSort: 'created_at',
  };
  if (filter.name) spec.where.push(`name ilike ${param(spec.params, `%${filter.name}%`)}`);
  if (filter.status) spec.where.push(`status = ${param(spec.params, filter.status)}`);
  return pageRows<RestartTaskRecord>(db, page, spec);
}

const emptyCounts = (): RestartCounts => ({ total: 0, nonExecution: 0, executing: 0, pause: 0, success: 0, fail: 0, cancel: 0 });

/** Device counts by status of each task. */
export async function restartCounts(db: Sql, taskIds: string[]): Promise<Map<string, RestartCounts>> {
  const rows = await db.query<{ taskId: string; status: FileTaskStatus; n: number }>(
    `select task_id as "taskId", status, count(*)::int as n from rm_restart_devices where task_id = any($1) group by task_id, status`,
    [taskIds],
  );
  const counts = new Map(taskIds.map((id) => [id, emptyCounts()]));
  for (const r of rows.rows) {
    const c = counts.get(r.taskId)!;
    c[r.status] += r.n;
    c.total += r.n;
  }
  return counts;
}

/** A page of a task's devices, by SN. */
export async function restartDevicesPage(
  db: Sql,
  tenantId: string,
  filter: { taskId: string; status?: FileTaskStatus },
  page: PageQuery,
): Promise<Page<RestartDeviceRecord>> {
  const spec: ListSpec = {
    select: DEVICE,
    from: 'rm_restart_devices',
    where: ['tenant_id = $1', 'task_id = $2'],
    params: [tenantId, filter.taskId],
    sortable: {},
    defaultSort: 'sn',
  };
  if (filter.status) spec.where.push(`status = ${param(spec.params, filter.status)}`);
  return pageRows<RestartDeviceRecord>(db, { ...page, order: 'asc' }, spec);
}

/** Tasks whose task time has come and that have not started. */
export async function dueRestartTasks(db: Sql, now: Date, limit: number): Promise<Array<{ tenantId: string; taskId: string }>> {
  const rows = await db.query<{ tenantId: string; taskId: string }>(
    `select tenant_id as "tenantId", id as "taskId" from rm_restart_tasks where status = 'nonExecution' and task_time <= $1
     order by task_time limit $2`,
    [now, limit],
  );
  return rows.rows;
}

/** Running tasks past their expiry. */
export async function expiredRestartTasks(db: Sql, now: Date, limit: number): Promise<Array<{ tenantId: string; taskId: string }>> {
  const rows = await db.query<{ tenantId: string; taskId: string }>(
    `select tenant_id as "tenantId", id as "taskId" from rm_restart_tasks where status = 'executing' and expiry <= $1
     order by expiry limit $2`,
    [now, limit],
  );
  return rows.rows;
}

/** Devices paused (offline) in a running task before its expiry: what the ticker retries when they are reachable. */
export async function pausedRestartDevices(
  db: Sql,
  now: Date,
  limit: number,
): Promise<Array<{ tenantId: string; taskId: string; deviceId: string }>> {
  const rows = await db.query<{ tenantId: string; taskId: string; deviceId: string }>(
    `select d.tenant_id as "tenantId", d.task_id as "taskId", d.device_id as "deviceId" from rm_restart_devices d
     join rm_restart_tasks t on t.id = d.task_id where d.status = 'pause' and t.status = 'executing' and t.expiry > $1
     order by d.updated_at limit $2`,
    [now, limit],
  );
  return rows.rows;
}
