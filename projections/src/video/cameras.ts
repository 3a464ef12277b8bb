import type { AlarmEvent, CameraEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/**
 * Cameras of each tenant, and the snapshot references alarms carry: an alarm raised by a rule with a camera keeps
 * that camera's stream as it was at that point of the log, so a later edit or deletion of the camera leaves it be.
 */
export const camerasProjection = projection<CameraEvent | AlarmEvent>({
  name: 'cameras',
  handles: ['CameraRegistered', 'CameraUpdated', 'CameraDeleted', 'AlarmRaised'],
  tables: ['rm_cameras', 'rm_camera_snapshots'],
  schema: `
    create table rm_cameras (
      id text primary key,
      tenant_id text not null,
      name text not null,
      stream_url text not null,
      group_id text,
      device_id text,
      location text,
      remark text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index rm_cameras_tenant on rm_cameras (tenant_id, created_at desc);
    create table rm_camera_snapshots (
      alarm_id text primary key,
      tenant_id text not null,
      camera_id text not null,
      camera_name text,
      stream_url text,
      at timestamptz not null
    );`,
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    switch (event.type) {
      case 'CameraRegistered':
      case 'CameraUpdated': {
        const d = event.data;
        await tx.query(
          `insert into rm_cameras (id, tenant_id, name, stream_url, group_id, device_id, location, remark, created_at, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
           on conflict (id) do update set name = $3, stream_url = $4, group_id = $5, device_id = $6, location = $7, remark = $8,
             updated_at = $9`,
          [d.cameraId, event.metadata.tenantId, d.name, d.streamUrl, d.groupId, d.deviceId, d.location, d.remark, at],
        );
        return;
      }
      case 'CameraDeleted':
        await tx.query('delete from rm_cameras where id = $1', [event.data.cameraId]);
        return;
      case 'AlarmRaised': {
        const { alarmId, cameraId } = event.data;
        if (!cameraId) return;
        // The camera as it is now in the log (it may have gone since the rule named it: the reference keeps its id).
        await tx.query(
          `insert into rm_camera_snapshots (alarm_id, tenant_id, camera_id, camera_name, stream_url, at)
           select $1, $2, $3, c.name, c.stream_url, $4
           from (select 1) one left join rm_cameras c on c.id = $3 and c.tenant_id = $2
           on conflict (alarm_id) do nothing`,
          [alarmId, event.metadata.tenantId, cameraId, event.data.at],
        );
        return;
      }
    }
  },
});
