import { z } from 'zod';
import { groupTypes } from '../constants.ts';
import { entityId, instant, timeZone } from '../identity/common.ts';

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

/** The group types a price schedule and the energy statistics belong to (spec §9: power station, also site). */
export const stationGroupTypes = ['powerStation', 'site'] as const satisfies readonly (typeof groupTypes)[number][];
export const isStationGroupType = (type: string | null | undefined): boolean =>
  (stationGroupTypes as readonly string[]).includes(type ?? '');

/**
 * A schedule is a station's own (`groupId`, the station's group) or the tenant's default (null), which prices every
 * station without one. Not `stationId`: that query parameter is the caller's current group (spec §6), taken by the adapter.
 */
export const priceScheduleBody = priceSchedule.safeExtend({ groupId: entityId.nullable() }).strict();
export type PriceScheduleBody = z.output<typeof priceScheduleBody>;
/** Which schedule: a station's, or the tenant's default when `groupId` is left out. */
export const priceScheduleQuery = z.object({ groupId: entityId.optional() }).strict();
export const priceScheduleRow = priceSchedule.extend({
  groupId: z.string().nullable(),
  /** The station's group name; null for the tenant's default. */
  groupName: z.string().nullable(),
  updateTime: z.string(),
});
export type PriceScheduleRow = z.infer<typeof priceScheduleRow>;

/** The energy statistics' cycles: a bar per local day or per month. */
export const energyCycles = ['day', 'month'] as const;
export type EnergyCycle = (typeof energyCycles)[number];
/** The longest range the energy statistics cover: a year and a day. */
export const MAX_ENERGY_RANGE_DAYS = 367;
/** The cumulative energy variable (kWh) of a meter's thing model, unless told. */
export const ENERGY_VARIABLE = 'energy';

const energyRange = z
  .object({
    /** One station (a group of a station type in the caller's scope); none: every station the caller sees. */
    groupId: entityId.optional(),
    cycle: z.enum(energyCycles).default('day'),
    /** Windows starting at or after. */
    from: instant,
    /** Windows starting before. */
    to: instant,
    /** The zone days and months are cut in, and price periods read in; Asia/Shanghai unless told. */
    timeZone: timeZone.optional(),
    /** Only the meters of this product. */
    productId: entityId.optional(),
    /** The cumulative energy variable (kWh). */
    variable: z
      .string()
      .trim()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/)
      .default(ENERGY_VARIABLE),
  })
  .strict();
const checkEnergyRange = <T extends { from: string; to: string }>(q: T, ctx: z.RefinementCtx) => {
  const span = Date.parse(q.to) - Date.parse(q.from);
  if (!(span > 0) || span > MAX_ENERGY_RANGE_DAYS * 86_400_000) ctx.addIssue({ code: 'custom', path: ['to'], message: 'TIME_INVALID' });
};
export const energyStatsQuery = energyRange.superRefine(checkEnergyRange);
export type EnergyStatsQuery = z.output<typeof energyStatsQuery>;
export const energyExportQuery = energyRange.extend({ format: z.enum(['csv', 'xlsx']).default('csv') }).superRefine(checkEnergyRange);

const kwhByKind = z.object({ sharp: z.number(), peak: z.number(), flat: z.number(), valley: z.number() });
/** Energy of a window or a total: kWh per price kind, kWh outside any priced period (no schedule), the sum, and its cost. */
export const energyUse = kwhByKind.extend({
  unpriced: z.number(),
  kwh: z.number(),
  /** Cost of the priced kWh at the schedule's prices; null when the station has no schedule. */
  cost: z.number().nullable(),
});
export type EnergyUse = z.infer<typeof energyUse>;
export const energyStation = z.object({
  stationId: z.string(),
  stationName: z.string(),
  /** Meters counted: the station's devices (and its subgroups') whose thing model has the energy variable, of the product asked for. */
  meters: z.number().int(),
  /** Whose schedule priced it: its own, the tenant's default, or none. */
  schedule: z.enum(['station', 'default', 'none']),
  currency: z.string().nullable(),
  /** One row per window that has use, oldest first; `window` is the local day (YYYY-MM-DD) or month (YYYY-MM). */
  windows: z.array(energyUse.extend({ window: z.string() })),
  total: energyUse,
});
export type EnergyStation = z.infer<typeof energyStation>;
export const energyStats = z.object({
  cycle: z.enum(energyCycles),
  timeZone: z.string(),
  stations: z.array(energyStation),
  /** Every station's use per window, summed; cost summed only when every station shares one currency. */
  windows: z.array(energyUse.extend({ window: z.string() })),
  total: energyUse,
  currency: z.string().nullable(),
});
export type EnergyStats = z.infer<typeof energyStats>;
