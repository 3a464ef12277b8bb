import type { CameraFields, Page, PageQuery, cameraSortable } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';

/** A camera as the cameras projection keeps it (rm_cameras). */
export type CameraRecord = CameraFields & { id: string; tenantId: string; createdAt: Date; updatedAt: Date };

const CAMERA = `id, tenant_id as "tenantId", name, stream_url as "streamUrl", group_id as "groupId", device_id as "deviceId",
  location, remark, created_at as "createdAt", updated_at as "updatedAt"`;

/** A camera of a tenant, by id. */
export async function cameraById(db: Sql, tenantId: string, id: string): Promise<CameraRecord | null> {
  return (
    (await db.query<CameraRecord>(`select ${CAMERA} from rm_cameras where id = $1 and tenant_id = $2`, [id, tenantId])).rows[0] ?? null
  );
}

export interface CameraFilter {
  /** A part of the name, any case. */
  name?: string;
  /** Cameras of any of these groups (a group and its subtree, as the caller resolved it). */
  groupIds?: string[];
  deviceId?: string;
}
const sortBy = { createTime: 'created_at', name: 'lower(name)' } satisfies Record<(typeof cameraSortable)[number], string>;

/** A page of a tenant's cameras, newest first unless told. */
export async function camerasPage(db: Sql, tenantId: string, filter: CameraFilter, page: PageQuery): Promise<Page<CameraRecord>> {
  const spec: ListSpec = {
    select: CAMERA,
    from: 'rm_cameras',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: sortBy,
    defaultSort: 'created_at',
  };
  const { where, params } = spec;
  if (filter.name) where.push(`name ilike ${param(params, `%${filter.name}%`)}`);
  if (filter.groupIds) where.push(`group_id = any(${param(params, filter.groupIds)})`);
  if (filter.deviceId) where.push(`device_id = ${param(params, filter.deviceId)}`);
  return pageRows<CameraRecord>(db, page, spec);
}

/** The snapshot reference an alarm of the tenant carries: the camera, its name and stream then, and the moment. */
export type CameraSnapshotRecord = {
  alarmId: string;
  cameraId: string;
  cameraName: string | null;
  streamUrl: string | null;
  at: Date;
};

export async function snapshotOfAlarm(db: Sql, tenantId: string, alarmId: string): Promise<CameraSnapshotRecord | null> {
  return (
    (
      await db.query<CameraSnapshotRecord>(
        `select alarm_id as "alarmId", camera_id as "cameraId", camera_name as "cameraName", stream_url as "streamUrl", at
         from rm_camera_snapshots where alarm_id = $1 and tenant_id = $2`,
        [alarmId, tenantId],
      )
    ).rows[0] ?? null
  );
}
