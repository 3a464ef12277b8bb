import type { OtaDeviceEvent, OtaTaskEvent } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { projection } from '../projection.ts';

const deviceStatus: Partial<Record<OtaDeviceEvent['type'], string>> = {
  OtaDeviceOffered: 'executing',
  OtaDeviceProgressed: 'executing',
  OtaDevicePaused: 'pause',
  OtaDeviceResumed: 'executing',
  OtaDeviceSucceeded: 'success',
  OtaDeviceFailed: 'fail',
  OtaDeviceCancelled: 'cancel',
};

type Handled = OtaTaskEvent | OtaDeviceEvent;
/** A device row's status, stage and percent as an offer or a progress report leaves them. */
interface StageRow {
  taskId: string;
  deviceId: string;
  status: string;
  stage: string;
  percent: number | null;
  at: string;
}

/** Writes device rows' status, stage and percent in one statement. */
async function writeStages(tx: Sql, rows: Iterable<StageRow>) {
  const list = [...rows];
  if (list.length === 0) return;
  await tx.query(
    `update rm_ota_devices d set status = t.status, stage = t.stage, percent = t.percent, updated_at = t.at
     from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::timestamptz[]) as t(task_id, device_id, status, stage, percent, at)
     where d.task_id = t.task_id and d.device_id = t.device_id`,
    [
      list.map((r) => r.taskId),
      list.map((r) => r.deviceId),
      list.map((r) => r.status),
      list.map((r) => r.stage),
      list.map((r) => r.percent),
      list.map((r) => r.at),
    ],
  );
}

/** Rollout tasks and each of their devices, as the task screens show them and the wave ticker reads them. */
export const otaTasksProjection = projection<Handled>({
  name: 'otaTasks',
  handles: [
    'OtaTaskCreated',
    'OtaWaveStarted',
    'OtaWaveCompleted',
    'OtaTaskHalted',
    'OtaTaskPaused',
    'OtaTaskResumed',
    'OtaTaskCancelled',
    'OtaTaskFinished',
    'OtaDeviceOffered',
    'OtaDeviceProgressed',
    'OtaDevicePaused',
    'OtaDeviceResumed',
    'OtaDeviceSucceeded',
    'OtaDeviceFailed',
    'OtaDeviceCancelled',
  ],
  tables: ['rm_ota_tasks', 'rm_ota_devices'],
  schema: `
    create table rm_ota_tasks (
      id text primary key,
      tenant_id text not null,
      name text not null,
      file jsonb not null,
      target jsonb not null,
      -- The product a product-targeted rollout upgrades: its "upgrade progress".
      product_id text,
      waves jsonb not null,
      status text not null,
      wave int not null default 0,
      wave_count int not null,
      next_wave_at timestamptz,
      reason text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index rm_ota_tasks_tenant on rm_ota_tasks (tenant_id, created_at desc);
    create index rm_ota_tasks_due on rm_ota_tasks (next_wave_at) where next_wave_at is not null;
    create table rm_ota_devices (
      task_id text not null,
      device_id text not null,
      tenant_id text not null,
      sn text not null,
      wave int not null,
      status text not null,
      stage text,
      percent int,
      from_version text,
      to_version text,
      reason text,
      updated_at timestamptz not null,
      primary key (task_id, device_id)
    );
    create index rm_ota_devices_status on rm_ota_devices (task_id, status, wave);
    create index rm_ota_devices_device on rm_ota_devices (tenant_id, device_id, status);`,
  migrations: [
    {
      version: 2,
      name: 'settled devices end at stage done or failed',
      // Rows settled before the stage recorded the end kept the last stage reported (a device done at 100% "downloading").
      sql: `update rm_ota_devices set stage = case status when 'success' then 'done' else 'failed' end
            where status in ('success', 'fail') and stage is distinct from case status when 'success' then 'done' else 'failed' end`,
    },
  ],
  /**
   * A run of offers and progress reports (a wave's offers, the devices' reports) is one statement, each row written
   * once with its last values; any other event writes what came before it first, then itself, in log order.
   */
  async applyBatch(tx, events) {
    const stages = new Map<string, StageRow>();
    for (const event of events) {
      if (event.type === 'OtaDeviceOffered' || event.type === 'OtaDeviceProgressed') {
        const { taskId, deviceId } = event.data;
        const progressed = event.type === 'OtaDeviceProgressed' ? event.data : null;
        const key = `${taskId}\0${deviceId}`;
        stages.delete(key);
        stages.set(key, {
          taskId,
          deviceId,
          status: deviceStatus[event.type]!,
          stage: progressed?.stage ?? 'offered',
          percent: progressed?.percent ?? null,
          at: event.metadata.occurredAt,
        });
        continue;
      }
      await writeStages(tx, stages.values());
      stages.clear();
      await this.apply(tx, event);
    }
    await writeStages(tx, stages.values());
  },
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    const d = event.data;
    const task = (columns: string, params: unknown[]) =>
      tx.query(`update rm_ota_tasks set ${columns}, updated_at = $2 where id = $1`, [d.taskId, at, ...params]);
    const device = (columns: string, params: unknown[]) =>
      tx.query(`update rm_ota_devices set ${columns}, updated_at = $3 where task_id = $1 and device_id = $2`, [
        d.taskId,
        'deviceId' in d ? d.deviceId : null,
        at,
        ...params,
      ]);
    switch (event.type) {
      case 'OtaTaskCreated': {
        const c = event.data;
        const size = c.waves.size;
        await tx.query(
          `insert into rm_ota_tasks (id, tenant_id, name, file, target, product_id, waves, status, wave_count, created_at, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, 'nonExecution', $8, $9, $9) on conflict (id) do nothing`,
          [
            c.taskId,
            event.metadata.tenantId,
            c.name,
            JSON.stringify(c.file),
            JSON.stringify(c.target),
            c.target.kind === 'product' ? c.target.productId : null,
            JSON.stringify(c.waves),
            Math.ceil(c.devices.length / size),
            at,
          ],
        );
        await tx.query(
          `insert into rm_ota_devices (task_id, device_id, tenant_id, sn, wave, status, from_version, updated_at)
           select $1, t.device_id, $2, t.sn, (t.ord - 1) / $3 + 1, 'nonExecution', t.from_version, $4
           from unnest($5::text[], $6::text[], $7::text[]) with ordinality as t(device_id, sn, from_version, ord)
           on conflict do nothing`,
          [
            c.taskId,
            event.metadata.tenantId,
            size,
            at,
            c.devices.map((x) => x.deviceId),
            c.devices.map((x) => x.sn),
            c.devices.map((x) => x.fromVersion),
          ],
        );
        return;
      }
      case 'OtaWaveStarted':
        await task(`wave = $3, next_wave_at = null, status = case when status = 'nonExecution' then 'executing' else status end`, [
          event.data.wave,
        ]);
        return;
      case 'OtaWaveCompleted':
        await task('next_wave_at = $3', [event.data.nextWaveAt]);
        return;
      case 'OtaTaskHalted':
        await task('reason = $3', [`wave ${event.data.wave}: ${event.data.failurePercent}% failed`]);
        return;
      case 'OtaTaskPaused':
        await task(`status = 'pause'`, []);
        return;
      case 'OtaTaskResumed':
        await task(`status = case when wave = 0 then 'nonExecution' else 'executing' end`, []);
        return;
      case 'OtaTaskCancelled':
        await task(`status = 'cancel', next_wave_at = null`, []);
        await tx.query(`update rm_ota_devices set status = 'cancel', updated_at = $2 where task_id = $1 and status = 'nonExecution'`, [
          d.taskId,
          at,
        ]);
        return;
      case 'OtaTaskFinished':
        await task('status = $3, next_wave_at = null', [event.data.status]);
        return;
      case 'OtaDeviceOffered':
        await device(`status = $4, stage = 'offered', percent = null`, [deviceStatus[event.type]]);
        return;
      case 'OtaDeviceProgressed':
        await device('status = $4, stage = $5, percent = $6', [deviceStatus[event.type], event.data.stage, event.data.percent]);
        return;
      case 'OtaDeviceSucceeded':
        await device(`status = $4, stage = 'done', percent = 100, to_version = $5`, [deviceStatus[event.type], event.data.version]);
        return;
      case 'OtaDeviceFailed':
        await device(`status = $4, stage = 'failed', reason = $5`, [deviceStatus[event.type], event.data.reason]);
        return;
      case 'OtaDevicePaused':
      case 'OtaDeviceResumed':
      case 'OtaDeviceCancelled':
        await device('status = $4', [deviceStatus[event.type]]);
        return;
    }
  },
});
