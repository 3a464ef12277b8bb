import { describe, expect, it } from 'vitest';
import { pricedUse, type PriceSchedule, type PriceScheduleEvent } from '@iot/contracts';
import { codeOf, scenario } from '../decider-testing.ts';
import { priceScheduleDecider, priceScheduleStream } from './decide.ts';

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
const stationId = 'station-1';
const set: PriceScheduleEvent = { type: 'PriceScheduleSet', data: { stationId, ...schedule } };
const tariff = scenario(priceScheduleDecider);
const add = (s: PriceSchedule) => () => tariff.given([]).when({ type: 'AddPriceSchedule', stationId, schedule: s });
const edit = (s: PriceSchedule) => () => tariff.given([set]).when({ type: 'EditPriceSchedule', stationId, schedule: s });

describe('price schedule decider', () => {
  it("adds a station's schedule whose periods cover the day once, the valley across midnight; a second add is refused", () => {
    expect(add(schedule)()).toEqual([set]);
    expect(codeOf(() => tariff.given([set]).when({ type: 'AddPriceSchedule', stationId, schedule }))).toBe('PRICE_SCHEDULE_EXISTS');
    const byDefault = tariff.given([]).when({ type: 'AddPriceSchedule', stationId: null, schedule });
    expect(byDefault).toEqual([{ type: 'PriceScheduleSet', data: { stationId: null, ...schedule } }]);
  });

  it('edits a schedule whole; the same again appends nothing; editing or deleting one never added is NOT_FOUND', () => {
    expect(edit(schedule)()).toEqual([]);
    const cheaper = { ...schedule, prices: { ...schedule.prices, valley: 0.25 } };
    expect(edit(cheaper)()).toEqual([{ type: 'PriceScheduleSet', data: { stationId, ...cheaper } }]);
    expect(codeOf(() => tariff.given([]).when({ type: 'EditPriceSchedule', stationId, schedule }))).toBe('NOT_FOUND');
    expect(codeOf(() => tariff.given([]).when({ type: 'RemovePriceSchedule', stationId }))).toBe('NOT_FOUND');
  });

  it('deletes a schedule, after which it may be added again', () => {
    const removed: PriceScheduleEvent = { type: 'PriceScheduleRemoved', data: { stationId } };
    expect(tariff.given([set]).when({ type: 'RemovePriceSchedule', stationId })).toEqual([removed]);
    expect(tariff.given([set, removed]).when({ type: 'AddPriceSchedule', stationId, schedule })).toEqual([set]);
  });

  it('refuses periods that overlap, leave part of the day, or use a kind without a price, on add and on edit', () => {
    const periods = schedule.periods;
    const overlapping = { ...schedule, periods: [...periods.slice(0, 5), { kind: 'flat' as const, start: '20:55', end: '23:00' }] };
    expect(codeOf(add(overlapping))).toBe('PRICE_PERIODS_OVERLAP');
    expect(codeOf(edit(overlapping))).toBe('PRICE_PERIODS_OVERLAP');
    expect(codeOf(add({ ...schedule, periods: periods.slice(1) }))).toBe('PRICE_PERIODS_GAP');
    expect(codeOf(edit({ ...schedule, periods: [{ kind: 'sharp', start: '00:00', end: '24:00' }] }))).toBe('PRICE_MISSING');
    expect(add({ ...schedule, periods: [{ kind: 'flat', start: '00:00', end: '00:00' }] })()).toHaveLength(1);
  });

  it("keeps the tenant's default apart from every station's stream", () => {
    expect(priceScheduleStream('t1', null)).toBe('priceDefault-t1.default');
    expect(priceScheduleStream('t1', 'default')).toBe('priceSchedule-t1.default');
  });

  it('prices use by the kind of its period', () => {
    expect(pricedUse(schedule, { period: 0, kwh: 32 })).toEqual({ kind: 'valley', cost: 9.6 });
    expect(pricedUse(schedule, { period: 2, kwh: 36 })).toEqual({ kind: 'peak', cost: 43.2 });
    expect(pricedUse(schedule, { period: null, kwh: 5 })).toEqual({ kind: null, cost: null });
  });
});
