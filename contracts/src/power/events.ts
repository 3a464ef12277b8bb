import type { DomainEvent } from '../event.ts';
import type { PriceSchedule } from './model.ts';

/** What happens to a price schedule (a station's, or the tenant's default when `stationId` is null): set whole, or removed. */
export type PriceScheduleEvent =
  | DomainEvent<'PriceScheduleSet', PriceSchedule & { stationId: string | null }>
  | DomainEvent<'PriceScheduleRemoved', { stationId: string | null }>;
export type PriceScheduleEventType = PriceScheduleEvent['type'];
