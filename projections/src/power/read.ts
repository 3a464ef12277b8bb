import type { PriceSchedule } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';

/** A price schedule as the priceSchedules projection keeps it (rm_price_schedules); `stationId` null is the tenant's default. */
export type PriceScheduleRecord = PriceSchedule & { stationId: string | null; updatedAt: Date };

const SCHEDULE = `nullif(station_id, '') as "stationId", currency, prices, periods, updated_at as "updatedAt"`;

/** The tenant's default schedule (no station) and those of these stations (every station's when left out), default first. */
export async function priceSchedulesOf(db: Sql, tenantId: string, stationIds?: readonly string[]): Promise<PriceScheduleRecord[]> {
  const byStation = stationIds ? `and (station_id = '' or station_id = any($2))` : '';
  return (
    await db.query<PriceScheduleRecord>(
      `select ${SCHEDULE} from rm_price_schedules where tenant_id = $1 ${byStation} order by station_id <> '', station_id`,
      stationIds ? [tenantId, [...stationIds]] : [tenantId],
    )
  ).rows;
}

/** A station's own schedule, or the tenant's default (null), or null when there is none. */
export async function priceScheduleOf(db: Sql, tenantId: string, stationId: string | null): Promise<PriceScheduleRecord | null> {
  const rows = await db.query<PriceScheduleRecord>(`select ${SCHEDULE} from rm_price_schedules where tenant_id = $1 and station_id = $2`, [
    tenantId,
    stationId ?? '',
  ]);
  return rows.rows[0] ?? null;
}
