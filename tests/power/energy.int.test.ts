import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PriceSchedule } from '@iot/contracts';
import type { TelemetryRow } from '@iot/contracts/ports/timeseries.ts';
import { ok, refusal } from '../harness/api.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * The power area's price schedules and energy statistics (issue 20) through the routes on the embedded engines, over
 * meter readings whose use and cost are worked out by hand below.
 *
 * Groups of tenant volt:  North (institution) ─ Station A (powerStation) ─ Meter room (powerRoom)
 *                         Station B (powerStation)
 * Meters (product Meter): M1 in the meter room, M2 in Station A, M3 in Station B; X1 (product Other) in Station A;
 * S1 (product Sensor, no energy variable) in Station A.
 */
let sut: TestPlatform;
let token: string;
let otherToken: string;
const g: Record<string, string> = {};
const d: Record<string, string> = {};
let meterProduct: string;

/** Shanghai is UTC+8: local 2026-03-02 00:00 is 2026-03-01T16:00Z. */
const local = (day: number, minute: number) => new Date(Date.UTC(2026, 2, day, 0, minute) - 8 * 3_600_000);
const range = { from: local(2, 0).toISOString(), to: local(4, 0).toISOString(), timeZone: 'Asia/Shanghai' };

/** Station A's tariff: valley across midnight at 0.3, peak 8-11 and 18-21 at 1.2, flat the rest at 0.7. */
const tariff: PriceSchedule = {
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
/** The tenant's default: one flat price all day. */
const flatDefault: PriceSchedule = {
  currency: 'CNY',
  prices: { sharp: null, peak: null, flat: 0.5, valley: null },
  periods: [{ kind: 'flat', start: '00:00', end: '24:00' }],
};

const reading = (device: string, ts: Date, value: number): TelemetryRow => ({
  tenantId: 'volt',
  deviceId: d[device]!,
  variable: 'energy',
  ts,
  value,
  text: null,
});

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'volt', name: 'voltCo', adminUsername: 'voltAdmin', adminPassword: 'Volt#pw12' });
  await sut.seedTenant({ id: 'watt', name: 'wattCo', adminUsername: 'wattAdmin', adminPassword: 'Watt#pw12' });
  token = await sut.login('voltAdmin', 'Volt#pw12');
  otherToken = await sut.login('wattAdmin', 'Watt#pw12');
  const group = async (key: string, name: string, type: string, parent?: string) =>
    (g[key] = ok(await sut.call('group.create', { token, body: { name, type, parentId: parent ? g[parent] : null } })).id);
  await group('north', 'North', 'institution');
  await group('a', 'Station A', 'powerStation', 'north');
  await group('room', 'Meter room', 'powerRoom', 'a');
  await group('b', 'Station B', 'powerStation');
  meterProduct = ok(await sut.call('product.create', { token, body: { name: 'Meter', code: 'MTR', type: 'direct' } })).id;
  const other = ok(await sut.call('product.create', { token, body: { name: 'Other', code: 'OTH', type: 'direct' } })).id;
  const sensor = ok(await sut.call('product.create', { token, body: { name: 'Sensor', code: 'SNS', type: 'direct' } })).id;
  const energy = { type: 'property', name: '电能', identifier: 'energy', dataType: { type: 'double', min: 0, max: 1e9, unit: 'kWh' } };
  for (const productId of [meterProduct, other])
    ok(await sut.call('product.defineFunction', { token, body: { productId, function: energy } }));
  const device = async (key: string, productId: string, groupId: string) =>
    (d[key] = ok(await sut.call('device.create', { token, body: { sn: `SN-${key}`, name: `Meter ${key}`, productId, groupId } })).id);
  await device('M1', meterProduct, g.room!);
  await device('M2', meterProduct, g.a!);
  await device('M3', meterProduct, g.b!);
  await device('X1', other, g.a!);
  // A sensor in the station is no meter: its product has no energy variable.
  await device('S1', sensor, g.a!);

  // M1: a reading every 15 minutes from local 03-01 23:00 to 03-02 23:45, each 1 kWh more in the valley, 3 at the
  // peak, 2 otherwise: 03-02 has 32 valley readings (32 kWh), 24 peak (72) and 40 flat (80).
  // M2: 0.5 kWh every 15 minutes over the same day: valley 16, peak 12, flat 20.
  const rows: TelemetryRow[] = [];
  let m1 = 1000;
  let m2 = 50;
  for (let minute = -60; minute < 1440; minute += 15) {
    const m = (minute + 1440) % 1440;
    const kind = m >= 23 * 60 || m < 7 * 60 ? 1 : (m >= 8 * 60 && m < 11 * 60) || (m >= 18 * 60 && m < 21 * 60) ? 3 : 2;
    m1 += kind;
    m2 += 0.5;
    rows.push(reading('M1', local(2, minute), m1), reading('M2', local(2, minute), m2));
  }
  // X1: 10 kWh at 12:15 (flat). M3: 20 kWh at 10:05 on 03-02, 5 more at 02:00 on 03-03.
  rows.push(reading('X1', local(2, 720), 100), reading('X1', local(2, 735), 110));
  rows.push(reading('M3', local(2, 600), 0), reading('M3', local(2, 605), 20), reading('M3', local(3, 120), 25));
  await sut.platform.timeseries!.insertTelemetry(rows);
}, 180_000);
afterAll(async () => sut?.stop());

describe('price schedules', () => {
  it("adds a station's schedule and the tenant's default, refusing a second add, a group that is no station and bad periods", async () => {
    ok(await sut.call('power.priceAdd', { token, body: { groupId: g.a!, ...tariff } }));
    expect(refusal(await sut.call('power.priceAdd', { token, body: { groupId: g.a!, ...tariff } }))).toBe('PRICE_SCHEDULE_EXISTS');
    expect(refusal(await sut.call('power.priceAdd', { token, body: { groupId: g.room!, ...tariff } }))).toBe('NOT_A_STATION');
    expect(refusal(await sut.call('power.priceAdd', { token, body: { groupId: 'nope', ...tariff } }))).toBe('NOT_FOUND');
    const overlap = { ...flatDefault, periods: [...flatDefault.periods, { kind: 'flat' as const, start: '01:00', end: '02:00' }] };
    const refused = await sut.call('power.priceAdd', { token, body: { groupId: g.b!, ...overlap }, headers: { 'accept-language': 'en' } });
    expect(refused.json).toMatchObject({ code: 400, msg: 'The price periods overlap' });
    const gap = await sut.call('power.priceAdd', { token, body: { groupId: g.b!, ...tariff, periods: [tariff.periods[0]!] } });
    expect(gap.json).toMatchObject({ msg: '电价时段须覆盖全天' });
    const negative = { ...flatDefault, prices: { ...flatDefault.prices, flat: -0.5 } };
    expect((await sut.call('power.priceAdd', { token, body: { groupId: g.b!, ...negative } })).status).toBe(400);
    ok(
      await sut.call('power.priceAdd', {
        token,
        body: { groupId: null, ...{ ...flatDefault, prices: { ...flatDefault.prices, flat: 0.9 } } },
      }),
    );
    ok(await sut.call('power.priceEdit', { token, body: { groupId: null, ...flatDefault } }));
    expect(refusal(await sut.call('power.priceEdit', { token, body: { groupId: g.b!, ...flatDefault } }))).toBe('NOT_FOUND');

    expect(ok(await sut.call('power.price', { token, query: { groupId: g.a! } }))).toMatchObject({ groupName: 'Station A', ...tariff });
    expect(ok(await sut.call('power.price', { token }))).toMatchObject({ groupId: null, groupName: null, ...flatDefault });
    expect(refusal(await sut.call('power.price', { token, query: { groupId: g.b! } }))).toBe('NOT_FOUND');
    const list = ok(await sut.call('power.prices', { token }));
    expect(list.map((r) => r.groupName)).toEqual([null, 'Station A']);
    const stations = ok(await sut.call('power.stations', { token }));
    expect(stations.map((s) => [s.name, s.ownSchedule])).toEqual([
      ['Station A', true],
      ['Station B', false],
    ]);
  });

  it("keeps a caller narrowed to a station to its subtree: not the default's changes, nor another station's schedule", async () => {
    const inB = { token, query: { stationId: g.b! } };
    const forbidden = await sut.call('power.priceEdit', { token, query: { stationId: g.b! }, body: { groupId: null, ...flatDefault } });
    expect(forbidden.status).toBe(403);
    expect(refusal(await sut.call('power.priceDelete', { token, query: { stationId: g.b!, groupId: g.a! } }))).toBe('NOT_FOUND');
    expect(ok(await sut.call('power.prices', inB)).map((r) => r.groupId)).toEqual([null]);
    expect(ok(await sut.call('power.stations', inB)).map((s) => s.name)).toEqual(['Station B']);
  });

  it("keeps every tenant's schedules apart", async () => {
    expect(ok(await sut.call('power.prices', { token: otherToken }))).toEqual([]);
    expect(refusal(await sut.call('power.price', { token: otherToken, query: { groupId: g.a! } }))).toBe('NOT_FOUND');
    expect(refusal(await sut.call('power.priceDelete', { token: otherToken, query: { groupId: g.a! } }))).toBe('NOT_FOUND');
    expect((await sut.call('power.priceAdd', { token: otherToken, body: { groupId: g.a!, ...tariff } })).status).toBe(404);
  });
});

describe('energy statistics', () => {
  // Station A, meters only, by hand: valley 32 + 16 = 48 kWh × 0.3 = 14.4; peak 72 + 12 = 84 kWh × 1.2 = 100.8;
  // flat 80 + 20 = 100 kWh × 0.7 = 70; 232 kWh for 185.2. X1 adds 10 kWh flat (7.0).
  const stationA = { window: '2026-03-02', sharp: 0, peak: 84, flat: 100, valley: 48, unpriced: 0, kwh: 232, cost: 185.2 };

  it('splits a station’s use by day into sharp, peak, flat and valley (the valley across midnight) and prices it', async () => {
    const stats = ok(await sut.call('power.statistics', { token, query: { ...range, groupId: g.a!, productId: meterProduct } }));
    const { window: _w, ...total } = stationA;
    expect(stats.stations).toEqual([
      { stationId: g.a, stationName: 'Station A', meters: 2, schedule: 'station', currency: 'CNY', windows: [stationA], total },
    ]);
    expect(stats.total).toMatchObject({ kwh: 232, cost: 185.2 });
    const withOther = ok(await sut.call('power.statistics', { token, query: { ...range, groupId: g.a! } }));
    expect(withOther.stations[0]!.meters).toBe(3);
    expect(withOther.total).toEqual({ sharp: 0, peak: 84, flat: 110, valley: 48, unpriced: 0, kwh: 242, cost: 192.2 });
  });

  it("prices a station without its own schedule by the tenant's default, and sums every station per day and month", async () => {
    const stats = ok(await sut.call('power.statistics', { token, query: range }));
    const b = stats.stations.find((s) => s.stationName === 'Station B')!;
    expect(b).toMatchObject({ schedule: 'default', currency: 'CNY', meters: 1 });
    expect(b.windows).toEqual([
      { window: '2026-03-02', sharp: 0, peak: 0, flat: 20, valley: 0, unpriced: 0, kwh: 20, cost: 10 },
      { window: '2026-03-03', sharp: 0, peak: 0, flat: 5, valley: 0, unpriced: 0, kwh: 5, cost: 2.5 },
    ]);
    expect(stats.windows).toEqual([
      { window: '2026-03-02', sharp: 0, peak: 84, flat: 130, valley: 48, unpriced: 0, kwh: 262, cost: 202.2 },
      { window: '2026-03-03', sharp: 0, peak: 0, flat: 5, valley: 0, unpriced: 0, kwh: 5, cost: 2.5 },
    ]);
    expect(stats).toMatchObject({ currency: 'CNY', total: { kwh: 267, cost: 204.7 } });
    const monthly = ok(await sut.call('power.statistics', { token, query: { ...range, cycle: 'month' } }));
    expect(monthly.windows).toEqual([{ window: '2026-03', sharp: 0, peak: 84, flat: 135, valley: 48, unpriced: 0, kwh: 267, cost: 204.7 }]);
  });

  it('counts use outside any schedule as unpriced, once the schedules are deleted', async () => {
    ok(await sut.call('power.priceDelete', { token, query: {} }));
    const stats = ok(await sut.call('power.statistics', { token, query: { ...range, groupId: g.b! } }));
    expect(stats.stations[0]).toMatchObject({ schedule: 'none', currency: null, total: { unpriced: 25, kwh: 25, cost: null } });
    ok(await sut.call('power.priceAdd', { token, body: { groupId: null, ...flatDefault } }));
  });

  it('narrows to the caller’s station and keeps tenants apart', async () => {
    const inB = ok(await sut.call('power.statistics', { token, query: { ...range, stationId: g.b! } }));
    expect(inB.stations.map((s) => s.stationName)).toEqual(['Station B']);
    expect((await sut.call('power.statistics', { token, query: { ...range, stationId: g.b!, groupId: g.a! } })).status).toBe(404);
    expect(refusal(await sut.call('power.statistics', { token, query: { ...range, groupId: g.room! } }))).toBe('NOT_A_STATION');
    expect((await sut.call('power.statistics', { token: otherToken, query: { ...range, groupId: g.a! } })).status).toBe(404);
    const other = ok(await sut.call('power.statistics', { token: otherToken, query: range }));
    expect(other).toMatchObject({ stations: [], windows: [], total: { kwh: 0 } });
    expect((await sut.call('power.statistics', { token, query: { ...range, from: range.to, to: range.from } })).status).toBe(400);
  });

  it('exports the rows and totals as CSV in the reader’s language, and as XLSX', async () => {
    const csv = await sut.call('power.statisticsExport', {
      token,
      query: { ...range, groupId: g.a!, productId: meterProduct },
      headers: { 'accept-language': 'en' },
    });
    expect(csv.status).toBe(200);
    const lines = csv.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split(/\r?\n/);
    expect(lines[0]).toBe('Station,Period,Sharp (kWh),Peak (kWh),Flat (kWh),Valley (kWh),Unpriced (kWh),Energy (kWh),Cost,Currency');
    expect(lines[1]).toBe('Station A,2026-03-02,0,84,100,48,0,232,185.2,CNY');
    expect(lines.at(-1)).toBe('Total,Total,0,84,100,48,0,232,185.2,CNY');
    const xlsx = await sut.call('power.statisticsExport', { token, query: { ...range, format: 'xlsx' } });
    expect(xlsx.status).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
    const sheet = book.worksheets[0]!;
    expect(sheet.getRow(1).getCell(1).value).toBe('电站');
    expect(sheet.getRow(sheet.rowCount).values).toEqual([undefined, '合计', '合计', 0, 84, 135, 48, 0, 267, 204.7, 'CNY']);
  });
});
