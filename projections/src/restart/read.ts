import type { FileTaskStatus, OtaTarget, Page, PageQuery, RestartCounts, restartTaskSortable } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { deviceTaskCountsOf, deviceTaskDevicesPage, deviceTasksPage } from '../shared/device-task.ts';

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
const TABLES = { tasks: 'rm_restart_tasks', devices: 'rm_restart_devices' };

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
export const restartTasksPage = (
  db: Sql,
  tenantId: string,
  filter: { name?: string; status?: FileTaskStatus },
  page: PageQuery,
): Promise<Page<RestartTaskRecord>> => deviceTasksPage<RestartTaskRecord>(db, TABLES, TASK, sortBy, tenantId, filter, page);

/** Device counts by status of each task. */
export const restartCounts = (db: Sql, taskIds: string[]): Promise<Map<string, RestartCounts>> => deviceTaskCountsOf(db, TABLES, taskIds);

/** A page of a task's devices, by SN. */
export const restartDevicesPage = (
  db: Sql,
  tenantId: string,
  filter: { taskId: string; status?: FileTaskStatus | undefined },
  page: PageQuery,
): Promise<Page<RestartDeviceRecord>> => deviceTaskDevicesPage<RestartDeviceRecord>(db, TABLES, DEVICE, 'sn', tenantId, filter, page);

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
