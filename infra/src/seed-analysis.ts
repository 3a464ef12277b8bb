import { reportFields, statTaskFields, type PriceSchedule } from '@iot/contracts';
import type { TelemetryRow, TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import { handleCommand, newAggregateId, type CommandContext } from '@iot/command/handler.ts';
import { priceScheduleDecider, priceScheduleStream } from '@iot/command/power/decide.ts';
import { reportDecider, reportStream } from '@iot/command/report/decide.ts';
import { statTaskDecider, statTaskStream } from '@iot/command/stat/decide.ts';
import type { AppContext } from './http/context.ts';
import { demoEnergy } from './simulator.ts';

/**
 * The demo tenant's analysis (issue 20): a running statistic task over the sensors' temperature and a saved
 * report of the first four sensors, so that a newcomer's statistic-task and report screens show something
 * the simulator feeds. Idempotent: every create carries a fixed idempotency key.
 */
export async function seedDemoAnalysis(context: AppContext, tenantId: string): Promise<void> {
  const seed: CommandContext = { tenantId, actor: { kind: 'system', id: 'seed' } };
  const idOf = (key: string) => newAggregateId({ tenantId, idempotencyKey: key });
  const sensorProduct = idOf('demo-product:sensor');

  const taskId = idOf('demo-stat-task:temperature');
  const task = statTaskFields.parse({
    name: '传感器小时平均温度',
    dataType: 'deviceData',
    productId: sensorProduct,
    attribute: 'temperature',
    statType: 'avg',
    cycle: '1h',
    dimension: 'device',
    remark: '演示：每小时每台传感器的平均温度',
  });
  const stream = statTaskStream(tenantId, taskId);
  await handleCommand(
    context.store,
    statTaskDecider,
    stream,
    { type: 'CreateStatTask', taskId, fields: task, enabled: false },
    {
      ...seed,
      idempotencyKey: 'demo-stat-task:temperature',
    },
  );
  await handleCommand(
    context.store,
    statTaskDecider,
    stream,
    { type: 'SetStatTaskStatus', taskId, status: 'enabled' },
    {
      ...seed,
      idempotencyKey: 'demo-stat-task:temperature:enable',
    },
  );

  const reportId = idOf('demo-report:climate');
  const report = reportFields.parse({
    name: '传感器温湿度日报',
    deviceIds: [1, 2, 3, 4].map((i) => idOf(`demo-device:DEMO-TH-${String(i).padStart(3, '0')}`)),
    variables: ['temperature', 'humidity'],
    fn: 'avg',
    cycle: '1h',
    remark: '演示：四台传感器每小时的平均温湿度',
  });
  await handleCommand(
    context.store,
    reportDecider,
    reportStream(tenantId, reportId),
    { type: 'Create', id: reportId, fields: report },
    {
      ...seed,
      idempotencyKey: 'demo-report:climate',
    },
  );

  await seedDemoPrices(context, tenantId, seed, idOf('demo-group:east-plant'));
}

/**
 * A Shanghai-style time-of-use tariff for the demo's power station (sharp in the summer afternoon and evening, valley
 * overnight) and a flat default for the tenant's other stations, so that the energy screen shows costs on `npm start`.
 */
async function seedDemoPrices(context: AppContext, tenantId: string, seed: CommandContext, stationId: string): Promise<void> {
  const plant: PriceSchedule = {
    currency: 'CNY',
    prices: { sharp: 1.32, peak: 1.05, flat: 0.65, valley: 0.31 },
    periods: [
      { kind: 'valley', start: '22:00', end: '06:00' },
      { kind: 'flat', start: '06:00', end: '08:00' },
      { kind: 'peak', start: '08:00', end: '11:00' },
      { kind: 'flat', start: '11:00', end: '13:00' },
      { kind: 'sharp', start: '13:00', end: '15:00' },
      { kind: 'flat', start: '15:00', end: '18:00' },
      { kind: 'peak', start: '18:00', end: '19:00' },
      { kind: 'sharp', start: '19:00', end: '21:00' },
      { kind: 'flat', start: '21:00', end: '22:00' },
    ],
  };
  const flat: PriceSchedule = {
    currency: 'CNY',
    prices: { sharp: null, peak: null, flat: 0.62, valley: null },
    periods: [{ kind: 'flat', start: '00:00', end: '24:00' }],
  };
  for (const [groupId, schedule, key] of [
    [stationId, plant, 'demo-price:east-plant'],
    [null, flat, 'demo-price:default'],
  ] as const)
    await handleCommand(
      context.store,
      priceScheduleDecider,
      priceScheduleStream(tenantId, groupId),
      { type: 'AddPriceSchedule', stationId: groupId, schedule },
      { ...seed, idempotencyKey: key },
    );
}

const DEMO_HISTORY_DAYS = 30;
const QUARTER_HOUR = 15 * 60_000;

/**
 * The demo meters' readings every 15 minutes over the last 30 days up to this instant, from the same curve the
 * simulator publishes, so that the energy screen has a month to show. Each meter is filled from its newest stored
 * reading on: the live readings then follow on from the last seeded one. A history that stopped earlier (at a day's
 * end, or when the platform stopped) would leave a gap whose whole use the first live reading counts in one 5-minute
 * bucket, in one price period.
 */
export async function seedDemoEnergyHistory(timeseries: TimeSeriesStore, tenantId: string, now = Date.now()): Promise<void> {
  const idOf = (key: string) => newAggregateId({ tenantId, idempotencyKey: key });
  const meters = [1, 2].flatMap((g) => [1, 2, 3].map((m) => `DEMO-PM-${g}${m}`));
  const shanghai = 8 * 3_600_000;
  const today = Math.floor((now + shanghai) / 86_400_000) * 86_400_000 - shanghai;
  const from = today - DEMO_HISTORY_DAYS * 86_400_000;
  const productId = idOf('demo-product:meter');
  const newest = new Map(
    (await timeseries.latest({ tenantId, deviceIds: meters.map((sn) => idOf(`demo-device:${sn}`)), variables: ['energy'] })).map((row) => [
      row.deviceId,
      row.ts.getTime(),
    ]),
  );
  const rows: TelemetryRow[] = [];
  for (const sn of meters) {
    const deviceId = idOf(`demo-device:${sn}`);
    const after = newest.get(deviceId);
    const first = after === undefined || after < from ? from : (Math.floor(after / QUARTER_HOUR) + 1) * QUARTER_HOUR;
    const at = (ts: number) => ({
      tenantId,
      deviceId,
      productId,
      variable: 'energy',
      ts: new Date(ts),
      value: demoEnergy(sn, ts),
      text: null,
    });
    for (let ts = first; ts < now; ts += QUARTER_HOUR) rows.push(at(ts));
    if (after === undefined || after < now) rows.push(at(now));
  }
  if (rows.length) await timeseries.insertTelemetry(rows);
}
