import type { StatTaskEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Statistic tasks of each tenant, as the task screen lists them and the scheduler reads them. */
export const statTasksProjection = projection<StatTaskEvent>({
  name: 'statTasks',
  handles: [
    'StatTaskCreated',
    'StatTaskUpdated',
    'StatTaskEnabled',
    'StatTaskStopped',
    'StatTaskDeleted',
    'StatTaskBackfillRequested',
    'StatTaskBackfillCancelled',
  ],
  tables: ['rm_stat_tasks'],
  schema: `
    create table rm_stat_tasks (
      id text primary key,
      tenant_id text not null,
      name text not null,
      data_type text not null,
      product_id text,
      attribute text not null,
      stat_type text not null,
      cycle text not null,
      dimension text not null,
      exclusion jsonb not null,
      time_zone text not null,
      remark text,
      status text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      backfill_id text,
      backfill_from timestamptz,
      backfill_to timestamptz,
      backfill_cancelled boolean not null default false,
      backfill_asked_at timestamptz
    );
    create index rm_stat_tasks_tenant on rm_stat_tasks (tenant_id, created_at desc);`,
  migrations: [
    {
      version: 2,
      name: 'backfill',
      sql: `alter table rm_stat_tasks add column if not exists backfill_id text, add column if not exists backfill_from timestamptz,
        add column if not exists backfill_to timestamptz, add column if not exists backfill_cancelled boolean not null default false,
        add column if not exists backfill_asked_at timestamptz;`,
    },
  ],
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    switch (event.type) {
      case 'StatTaskCreated':
      case 'StatTaskUpdated': {
        const d = event.data;
        const status = event.type === 'StatTaskCreated' ? (event.data.enabled ? 'enabled' : 'stopped') : null;
        await tx.query(
          `insert into rm_stat_tasks (id, tenant_id, name, data_type, product_id, attribute, stat_type, cycle, dimension, exclusion,
             time_zone, remark, status, created_at, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, coalesce($13, 'stopped'), $14, $14)
           on conflict (id) do update set name = $3, data_type = $4, product_id = $5, attribute = $6, stat_type = $7, cycle = $8,
             dimension = $9, exclusion = $10, time_zone = $11, remark = $12, updated_at = $14`,
          [
            d.taskId,
            event.metadata.tenantId,
            d.name,
            d.dataType,
            d.productId,
            d.attribute,
            d.statType,
            d.cycle,
            d.dimension,
            JSON.stringify(d.exclusion),
            d.timeZone,
            d.remark,
            status,
            at,
          ],
        );
        return;
      }
      case 'StatTaskEnabled':
      case 'StatTaskStopped':
        await tx.query('update rm_stat_tasks set status = $2, updated_at = $3 where id = $1', [
          event.data.taskId,
          event.type === 'StatTaskEnabled' ? 'enabled' : 'stopped',
          at,
        ]);
        return;
      case 'StatTaskDeleted':
        await tx.query('delete from rm_stat_tasks where id = $1', [event.data.taskId]);
        return;
      case 'StatTaskBackfillRequested':
        await tx.query(
          `update rm_stat_tasks set backfill_id = $2, backfill_from = $3, backfill_to = $4, backfill_cancelled = false, backfill_asked_at = $5
           where id = $1`,
          [event.data.taskId, event.data.backfillId, event.data.from, event.data.to, at],
        );
        return;
      case 'StatTaskBackfillCancelled':
        await tx.query('update rm_stat_tasks set backfill_cancelled = true where id = $1 and backfill_id = $2', [
          event.data.taskId,
          event.data.backfillId,
        ]);
        return;
    }
  },
});
