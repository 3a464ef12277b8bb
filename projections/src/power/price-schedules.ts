import type { PriceScheduleEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Each tenant's price schedules: one per station, and the default (station '' here) that prices the others. */
export const priceSchedulesProjection = projection<PriceScheduleEvent>({
  name: 'priceSchedules',
  handles: ['PriceScheduleSet', 'PriceScheduleRemoved'],
  tables: ['rm_price_schedules'],
  schema: `
    create table rm_price_schedules (
      tenant_id text not null,
      station_id text not null,
      currency text not null,
      prices jsonb not null,
      periods jsonb not null,
      updated_at timestamptz not null,
      primary key (tenant_id, station_id)
    );`,
  async apply(tx, event) {
    const tenantId = event.metadata.tenantId;
    const stationId = event.data.stationId ?? '';
    switch (event.type) {
      case 'PriceScheduleSet': {
        const d = event.data;
        await tx.query(
          `insert into rm_price_schedules (tenant_id, station_id, currency, prices, periods, updated_at) values ($1, $2, $3, $4, $5, $6)
           on conflict (tenant_id, station_id) do update set currency = $3, prices = $4, periods = $5, updated_at = $6`,
          [tenantId, stationId, d.currency, JSON.stringify(d.prices), JSON.stringify(d.periods), event.metadata.occurredAt],
        );
        return;
      }
      case 'PriceScheduleRemoved':
        await tx.query('delete from rm_price_schedules where tenant_id = $1 and station_id = $2', [tenantId, stationId]);
        return;
    }
  },
});
