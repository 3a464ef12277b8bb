import { z } from 'zod';
import type { DomainEvent } from '../event.ts';

/** The price periods of an electricity tariff (尖峰平谷): sharp peak, peak, flat and valley. */
export const priceKinds = ['sharp', 'peak', 'flat', 'valley'] as const;
export type PriceKind = (typeof priceKinds)[number];

/** 'HH:mm' on 5 minutes (the energy statistics read the 5-minute rollup); '24:00' ends a day. */
const clock = z.string().regex(/^(([01]\d|2[0-3]):[0-5][05]|24:00)$/, 'HH:mm, on 5 minutes');

/** A part of the local day with one price; an end at or before the start crosses midnight (23:00 to 07:00). */
export const pricePeriod = z.object({ kind: z.enum(priceKinds), start: clock, end: clock });
export type PricePeriod = z.infer<typeof pricePeriod>;

/** A tenant's tariff: a price per kWh for each kind it uses, and the periods of the day, which cover it once. */
export const priceSchedule = z.object({
  currency: z.string().trim().min(1).max(8),
  prices: z.object({
    sharp: z.number().nonnegative().nullable(),
    peak: z.number().nonnegative().nullable(),
    flat: z.number().nonnegative().nullable(),
    valley: z.number().nonnegative().nullable(),
  }),
  periods: z.array(pricePeriod).min(1).max(24),
});
export type PriceSchedule = z.infer<typeof priceSchedule>;

/** Minutes from local midnight of a clock time. */
export const minuteOfDay = (clockTime: string): number => {
  const [h, m] = clockTime.split(':').map(Number) as [number, number];
  return h * 60 + m;
};

/** The period as the time-series store takes it: start and end minute of the local day (end 0 for midnight). */
export const periodMinutes = (p: PricePeriod) => ({ startMinute: minuteOfDay(p.start), endMinute: minuteOfDay(p.end) % 1440 });

/** The minutes of the day a period covers, in order (across midnight too). */
export function minutesCovered(p: PricePeriod): number[] {
  const { startMinute, endMinute } = periodMinutes(p);
  const length = (endMinute - startMinute + 1440) % 1440 || 1440;
  return Array.from({ length: length / 5 }, (_, i) => (startMinute + i * 5) % 1440);
}

/** What is wrong with a schedule, or null: periods overlap, leave part of the day uncovered, or use a kind without a price. */
export function scheduleProblem(schedule: PriceSchedule): 'overlap' | 'gap' | 'price' | null {
  const covered = new Set<number>();
  for (const p of schedule.periods) {
    if (schedule.prices[p.kind] === null) return 'price';
    for (const m of minutesCovered(p)) {
      if (covered.has(m)) return 'overlap';
      covered.add(m);
    }
  }
  return covered.size === 1440 / 5 ? null : 'gap';
}

/** What is set on a tenant's tariff: the schedule, whole. */
export type PriceScheduleEvent = DomainEvent<'PriceScheduleSet', PriceSchedule>;

/** Energy used in a window and period, priced: kWh × the period's price per kWh. */
export function pricedUse(
  schedule: PriceSchedule,
  use: { period: number | null; kwh: number },
): { kind: PriceKind | null; cost: number | null } {
  const period = use.period === null ? undefined : schedule.periods[use.period];
  if (!period) return { kind: null, cost: null };
  const price = schedule.prices[period.kind];
  return { kind: period.kind, cost: price === null ? null : Math.round(use.kwh * price * 100) / 100 };
}
