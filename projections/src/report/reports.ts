import type { ReportEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Saved reports of each tenant, as the report screen lists them and the report scheduler reads them. */
export const reportsProjection = projection<ReportEvent>({
  name: 'reports',
  handles: ['ReportCreated', 'ReportUpdated', 'ReportDeleted'],
  tables: ['rm_reports'],
  schema: `
    create table rm_reports (
      id text primary key,
      tenant_id text not null,
      name text not null,
      device_ids text[] not null,
      group_id text,
      variables text[] not null,
      fn text not null,
      cycle text not null,
      time_zone text not null,
      frequency text not null,
      hour int not null,
      contact_ids text[] not null,
      remark text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index rm_reports_tenant on rm_reports (tenant_id, created_at desc);
    create index rm_reports_scheduled on rm_reports (frequency) where frequency <> 'none';`,
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    switch (event.type) {
      case 'ReportCreated':
      case 'ReportUpdated': {
        const d = event.data;
        await tx.query(
          `insert into rm_reports (id, tenant_id, name, device_ids, group_id, variables, fn, cycle, time_zone, frequency, hour,
             contact_ids, remark, created_at, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14)
           on conflict (id) do update set name = $3, device_ids = $4, group_id = $5, variables = $6, fn = $7, cycle = $8,
             time_zone = $9, frequency = $10, hour = $11, contact_ids = $12, remark = $13, updated_at = $14`,
          [
            d.reportId,
            event.metadata.tenantId,
            d.name,
            d.deviceIds,
            d.groupId,
            d.variables,
            d.fn,
            d.cycle,
            d.timeZone,
            d.frequency,
            d.hour,
            d.contactIds,
            d.remark,
            at,
          ],
        );
        return;
      }
      case 'ReportDeleted':
        await tx.query('delete from rm_reports where id = $1', [event.data.reportId]);
        return;
    }
  },
});
