import type { RestartTaskEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Restart tasks and each of their devices, as the task screen shows them and the restart ticker reads them. */
export const restartTasksProjection = projection<RestartTaskEvent>({
  name: 'restartTasks',
  handles: [
    'RestartTaskCreated',
    'RestartTaskStarted',
    'RestartDeviceSent',
    'RestartDevicePaused',
    'RestartDeviceSucceeded',
    'RestartDeviceFailed',
    'RestartTaskCancelled',
    'RestartTaskFinished',
  ],
  tables: ['rm_restart_tasks', 'rm_restart_devices'],
  schema: `
    create table rm_restart_tasks (
      id text primary key,
      tenant_id text not null,
      name text not null,
      target jsonb not null,
      status text not null,
      task_time timestamptz not null,
      expiry timestamptz not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index rm_restart_tasks_tenant on rm_restart_tasks (tenant_id, created_at desc);
    create index rm_restart_tasks_due on rm_restart_tasks (status, task_time);
    create table rm_restart_devices (
      task_id text not null,
      device_id text not null,
      tenant_id text not null,
      sn text not null,
      status text not null,
      reason text,
      updated_at timestamptz not null,
      primary key (task_id, device_id)
    );
    create index rm_restart_devices_status on rm_restart_devices (status, task_id);`,
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    const d = event.data;
    const task = (status: string) =>
      tx.query(`update rm_restart_tasks set status = $2, updated_at = $3 where id = $1`, [d.taskId, status, at]);
    const device = (deviceId: string, status: string, reason: string | null = null) =>
      tx.query(`update rm_restart_devices set status = $3, reason = $4, updated_at = $5 where task_id = $1 and device_id = $2`, [
        d.taskId,
        deviceId,
        status,
        reason,
        at,
      ]);
    switch (event.type) {
      case 'RestartTaskCreated': {
        const c = event.data;
        await tx.query(
          `insert into rm_restart_tasks (id, tenant_id, name, target, status, task_time, expiry, created_at, updated_at)
           values ($1, $2, $3, $4, 'nonExecution', $5, $6, $7, $7) on conflict (id) do nothing`,
          [c.taskId, event.metadata.tenantId, c.name, JSON.stringify(c.target), c.taskTime, c.expiry, at],
        );
        await tx.query(
          `insert into rm_restart_devices (task_id, device_id, tenant_id, sn, status, updated_at)
           select $1, t.device_id, $2, t.sn, 'nonExecution', $3 from unnest($4::text[], $5::text[]) as t(device_id, sn)
           on conflict do nothing`,
          [c.taskId, event.metadata.tenantId, at, c.devices.map((x) => x.deviceId), c.devices.map((x) => x.sn)],
        );
        return;
      }
      case 'RestartTaskStarted':
        await task('executing');
        return;
      case 'RestartDeviceSent':
        await device(event.data.deviceId, 'executing');
        return;
      case 'RestartDevicePaused':
        await device(event.data.deviceId, 'pause');
        return;
      case 'RestartDeviceSucceeded':
        await device(event.data.deviceId, 'success');
        return;
      case 'RestartDeviceFailed':
        await device(event.data.deviceId, 'fail', event.data.reason);
        return;
      case 'RestartTaskCancelled':
        await task('cancel');
        await tx.query(
          `update rm_restart_devices set status = 'cancel', updated_at = $2 where task_id = $1 and status in ('nonExecution', 'executing', 'pause')`,
          [d.taskId, at],
        );
        return;
      case 'RestartTaskFinished':
        await task(event.data.status);
        return;
    }
  },
});
