import { describe, expect, it } from 'vitest';
import { pricedUse, type PriceSchedule, type PriceScheduleEvent } from '@iot/contracts';
import { codeOf, scenario } from '../decider-testing.ts';
import { priceScheduleDecider } from './decide.ts';

const schedule: PriceSchedule = {
  currency: 'CNY',
  prices: { sharp: null, peak: 1.2, flat: 0.7, valley: 0.3 },
  periods: [
    { kind: 'valley', start: '23:00', end: '07:00' },
    { kind: 'flat', start: '07:00', end: '08:00' },
    { kind: 'peak', start: '08:00', end: '11:00' },
    { kind: 'flat', start: '11:00', end: '18:00' },
    { kind: 'peak', start: '18:00', end: '21:00' },
    { kind: 'flat', start: '21:00', end: '23:00' },
  ],
};
const set: PriceScheduleEvent = { type: 'PriceScheduleSet', data: schedule };
const tariff = scenario(priceScheduleDecider);
const when = (s: PriceSchedule) => () => tariff.given([]).when({ type: 'SetPriceSchedule', schedule: s });

describe('price schedule decider', () => {
  it('sets a schedule whose periods cover the day once, the valley across midnight; the same again appends nothing', () => {
    expect(when(schedule)()).toEqual([set]);
    expect(tariff.given([set]).when({ type: 'SetPriceSchedule', schedule })).toEqual([]);
    const cheaper = { ...schedule, prices: { ...schedule.prices, valley: 0.25 } };
    expect(tariff.given([set]).when({ type: 'SetPriceSchedule', schedule: cheaper })).toEqual([
      { type: 'PriceScheduleSet', data: cheaper },
    ]);
  });

  it('refuses periods that overlap, leave part of the day, or use a kind without a price', () => {
    const periods = schedule.periods;
    expect(codeOf(when({ ...schedule, periods: [...periods.slice(0, 5), { kind: 'flat', start: '20:55', end: '23:00' }] }))).toBe(
      'PRICE_PERIODS_OVERLAP',
    );
    expect(codeOf(when({ ...schedule, periods: periods.slice(1) }))).toBe('PRICE_PERIODS_GAP');
    expect(codeOf(when({ ...schedule, periods: [{ kind: 'sharp', start: '00:00', end: '24:00' }] }))).toBe('PRICE_MISSING');
    expect(when({ ...schedule, periods: [{ kind: 'flat', start: '00:00', end: '00:00' }] })()).toHaveLength(1);
  });

  it('prices use by the kind of its period', () => {
    expect(pricedUse(schedule, { period: 0, kwh: 32 })).toEqual({ kind: 'valley', cost: 9.6 });
    expect(pricedUse(schedule, { period: 2, kwh: 36 })).toEqual({ kind: 'peak', cost: 43.2 });
    expect(pricedUse(schedule, { period: null, kwh: 5 })).toEqual({ kind: null, cost: null });
  });
});
