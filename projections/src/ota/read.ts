import {
  emptyDeviceTaskCounts,
  type FileTaskStatus,
  type OtaCounts,
  type OtaTaskFile,
  type OtaDeviceStage,
  type OtaTarget,
  type OtaWaves,
  type Page,
  type PageQuery,
  type otaTaskSortable,
} from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { add, deviceTaskCountsOf, deviceTaskDevicesPage, deviceTasksPage } from '../shared/device-task.ts';

/** A rollout task as the otaTasks projection keeps it (rm_ota_tasks). */
export type OtaTaskRecord = {
  id: string;
  tenantId: string;
  name: string;
  file: OtaTaskFile;
  target: OtaTarget;
  waves: OtaWaves;
  status: FileTaskStatus;
  wave: number;
  waveCount: number;
  nextWaveAt: Date | null;
  reason: string | null;
  createdAt: Date;
  updatedAt: Date;
};

/** One device of a task (rm_ota_devices). */
export type OtaDeviceRecord = {
  deviceId: string;
  sn: string;
  wave: number;
  status: FileTaskStatus;
  stage: OtaDeviceStage | null;
  percent: number | null;
  fromVersion: string | null;
  toVersion: string | null;
  reason: string | null;
  updatedAt: Date;
};

const TASK = `id, tenant_id as "tenantId", name, file, target, waves, status, wave, wave_count as "waveCount",
  next_wave_at as "nextWaveAt", reason, created_at as "createdAt", updated_at as "updatedAt"`;
const DEVICE = `device_id as "deviceId", sn, wave, status, stage, percent, from_version as "fromVersion", to_version as "toVersion",
  reason, updated_at as "updatedAt"`;

const TABLES = { tasks: 'rm_ota_tasks', devices: 'rm_ota_devices' };

/** A rollout task of a tenant, by id. */
export async function otaTaskById(db: Sql, tenantId: string, id: string): Promise<OtaTaskRecord | null> {
  return (
    (await db.query<OtaTaskRecord>(`select ${TASK} from rm_ota_tasks where id = $1 and tenant_id = $2`, [id, tenantId])).rows[0] ?? null
  );
}

const sortBy = { createTime: 'created_at', name: 'lower(name)' } satisfies Record<(typeof otaTaskSortable)[number], string>;

/** A page of a tenant's rollout tasks, newest first unless told. */
export const otaTasksPage = (
  db: Sql,
  tenantId: string,
  filter: { name?: string; status?: FileTaskStatus },
  page: PageQuery,
): Promise<Page<OtaTaskRecord>> => deviceTasksPage<OtaTaskRecord>(db, TABLES, TASK, sortBy, tenantId, filter, page);

/** Device counts by status of each task. */
export const otaCounts = (db: Sql, taskIds: string[]): Promise<Map<string, OtaCounts>> => deviceTaskCountsOf(db, TABLES, taskIds);

/** A task's device counts by status, per wave, first wave first. */
export async function otaWaveCounts(db: Sql, taskId: string): Promise<Array<{ wave: number; counts: OtaCounts }>> {
  const rows = await db.query<{ wave: number; status: FileTaskStatus; n: number }>(
    'select wave, status, count(*)::int as n from rm_ota_devices where task_id = $1 group by wave, status order by wave',
    [taskId],
  );
  const waves = new Map<number, OtaCounts>();
  for (const r of rows.rows) waves.set(r.wave, add(waves.get(r.wave) ?? emptyDeviceTaskCounts(), r.status, r.n));
  return [...waves].map(([wave, counts]) => ({ wave, counts }));
}

/** A page of a task's devices (of the tenant's task), by wave then SN. */
export const otaDevicesPage = (
  db: Sql,
  tenantId: string,
  filter: { taskId: string; wave?: number | undefined; status?: FileTaskStatus | undefined },
  page: PageQuery,
): Promise<Page<OtaDeviceRecord>> =>
  deviceTaskDevicesPage<OtaDeviceRecord>(db, TABLES, DEVICE, 'wave asc, sn', tenantId, { ...filter, more: { wave: filter.wave } }, page);

/** The rollouts a device is in with one of these statuses, oldest task first. */
export async function otaTasksOfDevice(
  db: Sql,
  tenantId: string,
  deviceId: string,
  statuses: readonly FileTaskStatus[],
): Promise<string[]> {
  const rows = await db.query<{ taskId: string }>(
    `select d.task_id as "taskId" from rm_ota_devices d join rm_ota_tasks t on t.id = d.task_id
     where d.tenant_id = $1 and d.device_id = $2 and d.status = any($3) order by t.created_at, t.id`,
    [tenantId, deviceId, statuses],
  );
  return rows.rows.map((r) => r.taskId);
}

/** Tasks whose next wave is due at `now` (the pause between waves is over), oldest first. */
export async function dueOtaWaves(db: Sql, now: Date, limit: number): Promise<Array<{ tenantId: string; taskId: string }>> {
  const rows = await db.query<{ tenantId: string; taskId: string }>(
    `select tenant_id as "tenantId", id as "taskId" from rm_ota_tasks where next_wave_at <= $1 and status = 'executing'
     order by next_wave_at limit $2`,
    [now, limit],
  );
  return rows.rows;
}

/** Devices paused in a running task (offline when offered or since): what the sweeper tries to resume. */
export async function pausedOtaDevices(db: Sql, limit: number): Promise<Array<{ tenantId: string; taskId: string; deviceId: string }>> {
  const rows = await db.query<{ tenantId: string; taskId: string; deviceId: string }>(
    `select d.tenant_id as "tenantId", d.task_id as "taskId", d.device_id as "deviceId" from rm_ota_devices d
     join rm_ota_tasks t on t.id = d.task_id where d.status = 'pause' and t.status in ('executing', 'pause')
     order by d.updated_at limit $1`,
    [limit],
  );
  return rows.rows;
}

/**
 * A product's upgrade progress (spec §3): the share of devices upgraded, in percent, of its newest rollout that
 * targets the product; absent for a product no rollout targets.
 */
export async function productUpgradeProgress(db: Sql, tenantId: string, productIds: string[]): Promise<Map<string, number>> {
  const rows = await db.query<{ productId: string; progress: number }>(
    `select distinct on (t.product_id) t.product_id as "productId",
       (100.0 * count(*) filter (where d.status = 'success') / greatest(count(*), 1))::float8 as progress
     from rm_ota_tasks t join rm_ota_devices d on d.task_id = t.id
     where t.tenant_id = $1 and t.product_id = any($2)
     group by t.product_id, t.id, t.created_at order by t.product_id, t.created_at desc`,
    [tenantId, productIds],
  );
  return new Map(rows.rows.map((r) => [r.productId, Math.round(r.progress * 100) / 100]));
}

/**
 * The file a device's running rollout sends it, and that task, newest task first; null when none. A device whose offer the read model
 * has not seen yet (its row still nonExecution) is served too: ThingsBoard's client asks for chunks as soon as it is told.
 */
export async function otaFileOfDevice(db: Sql, tenantId: string, deviceId: string): Promise<(OtaTaskFile & { taskId: string }) | null> {
  const rows = await db.query<{ taskId: string; file: OtaTaskFile }>(
    `select t.id as "taskId", t.file from rm_ota_devices d join rm_ota_tasks t on t.id = d.task_id
     where d.tenant_id = $1 and d.device_id = $2 and d.status in ('executing', 'pause', 'nonExecution')
       and t.status in ('nonExecution', 'executing', 'pause')
     order by t.created_at desc limit 1`,
    [tenantId, deviceId],
  );
  const row = rows.rows[0];
  return row ? { ...row.file, taskId: row.taskId } : null;
}

/** Whether a rollout of the tenant that has not ended (not started, running or paused) sends the file. */
export async function otaTaskSendsFile(db: Sql, tenantId: string, fileId: string): Promise<boolean> {
  const rows = await db.query<{ used: boolean }>(
    `select exists(select 1 from rm_ota_tasks where tenant_id = $1 and file->>'fileId' = $2
       and status in ('nonExecution', 'executing', 'pause')) as used`,
    [tenantId, fileId],
  );
  return rows.rows[0]?.used ?? false;
}

/**
 * The file a task sends one of its devices while the device's part runs; null once it ended. A row still nonExecution
 * is a device whose offer the read model has not seen yet: its link was issued with the offer, so it fetches.
 */
export async function otaFileForDevice(db: Sql, tenantId: string, taskId: string, deviceId: string): Promise<OtaTaskFile | null> {
  const rows = await db.query<{ file: OtaTaskFile }>(
    `select t.file from rm_ota_devices d join rm_ota_tasks t on t.id = d.task_id
     where d.tenant_id = $1 and d.task_id = $2 and d.device_id = $3 and d.status in ('executing', 'pause', 'nonExecution')`,
    [tenantId, taskId, deviceId],
  );
  return rows.rows[0]?.file ?? null;
}
