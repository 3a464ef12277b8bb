import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatTaskEvent, StatTaskFields } from '@iot/contracts';
import type { StatComputation, StatResultPoint, TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import { manualAlarm } from '../../../tests/fixtures/events.ts';
import { readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { alarmsProjection } from '../alarm/alarms.ts';
import { devicesProjection } from '../device/devices.ts';
import { statTaskById } from './read.ts';
import { statBackfillsSchema } from './backfill.ts';
import { statTasksProjection } from './tasks.ts';
import { createStatScheduler, STAT_LATENESS_MS, statWindowName } from './scheduler.ts';
import { statTaskRuns, statTaskRunsSchema } from './runs.ts';
import { createStatWorker } from './worker.ts';

describe('statistic windows in a time zone', () => {
  it('change at Monday 00:00 and the first of the month in Shanghai, not in UTC', () => {
    const sunday = new Date('2026-03-01T15:59:00Z');
    const monday = new Date('2026-03-01T16:00:00Z');
    expect(statWindowName('1w', sunday, 'Asia/Shanghai')).not.toBe(statWindowName('1w', monday, 'Asia/Shanghai'));
    expect(statWindowName('1w', sunday, 'UTC')).toBe(statWindowName('1w', monday, 'UTC'));
    expect(statWindowName('1M', new Date('2026-02-28T15:59:00Z'), 'Asia/Shanghai')).toBe('2026-2');
    expect(statWindowName('1M', new Date('2026-02-28T16:00:00Z'), 'Asia/Shanghai')).toBe('2026-3');
    expect(statWindowName('12h', new Date('2026-03-02T03:59:00Z'), 'Asia/Shanghai')).toBe('2026-3-2 0');
    expect(statWindowName('12h', new Date('2026-03-02T04:00:00Z'), 'Asia/Shanghai')).toBe('2026-3-2 1');
    expect(statWindowName('10m', new Date('2026-03-02T04:09:59Z'), 'Asia/Shanghai')).not.toBe(
      statWindowName('10m', new Date('2026-03-02T04:10:00Z'), 'Asia/Shanghai'),
    );
  });
});

const fields: StatTaskFields = {
  name: 'x',
  dataType: 'deviceData',
  productId: null,
  attribute: 'energy',
  statType: 'sum',
  cycle: '1h',
  dimension: 'device',
  exclusion: { mode: 'none' },
  timeZone: 'Asia/Shanghai',
  remark: null,
};
let sut: ReadModel;
const computed: StatComputation[] = [];
const put: Array<{ taskId: string; points: readonly StatResultPoint[] }> = [];
const timeseries = {
  computeStat: async (c: StatComputation) => void computed.push(c),
  putStatResults: async (_tenantId: string, taskId: string, points: readonly StatResultPoint[]) => void put.push({ taskId, points }),
};

/** An alarm of a device on a variable raised at an instant. */
const raise = (tenantId: string, alarmId: string, deviceId: string, variable: string, at: string) =>
  sut.given(alarmsProjection, { type: 'AlarmRaised', data: manualAlarm(alarmId, deviceId, 3, at, { variable }) }, { tenantId, at });

beforeAll(async () => {
  sut = await readModelOf(statTasksProjection, devicesProjection, alarmsProjection);
  // The scheduler's runs table (owner stat.runs): what System → tasks reads of each run.
  await sut.db.query(statTaskRunsSchema);
  // The backfill worker's progress, which the task reads join.
  await sut.db.query(statBackfillsSchema);
  const tasks: Array<[string, Partial<StatTaskFields>, boolean]> = [
    ['hourly', {}, true],
    ['daily', { cycle: '1d' }, true],
    ['stopped', {}, false],
    ['alarms', { dataType: 'alarm', statType: 'count', attribute: '*' }, true],
    ['alarmingDevices', { dataType: 'alarm', statType: 'distinctCount', attribute: 'temp', dimension: 'tenant' }, true],
    ['weeklyAlarms', { dataType: 'alarm', statType: 'count', attribute: '*', cycle: '1w' }, false],
  ];
  for (const [taskId, more, enabled] of tasks) {
    const event: StatTaskEvent = { type: 'StatTaskCreated', data: { taskId, enabled, ...fields, ...more } };
    await sut.given(statTasksProjection, event, { tenantId: 't1' });
  }
});
afterAll(async () => sut?.drop());

describe('the statistic scheduler', () => {
  it('runs the enabled tasks whose cycle ended between two ticks, over the window that closed and the late margin', async () => {
    const scheduler = createStatScheduler({ db: sut.db, timeseries });
    const previous = new Date('2026-03-02T03:59:30Z');
    const now = new Date('2026-03-02T04:00:30Z');
    expect(await scheduler.tick(previous, now)).toEqual(['hourly', 'alarms', 'alarmingDevices']);
    expect(computed).toEqual([
      expect.objectContaining({
        taskId: 'hourly',
        tenantId: 't1',
        cycle: '1h',
        from: new Date(now.getTime() - STAT_LATENESS_MS),
        to: new Date(previous.getTime() + 1),
        keys: { kind: 'device' },
      }),
    ]);
    // Midnight in Shanghai: the daily task too.
    expect(await scheduler.tick(new Date('2026-03-02T15:59:30Z'), new Date('2026-03-02T16:00:30Z'))).toEqual([
      'hourly',
      'daily',
      'alarms',
      'alarmingDevices',
    ]);
    expect(await scheduler.tick(new Date('2026-03-02T16:00:30Z'), new Date('2026-03-02T16:01:30Z'))).toEqual([]);
  });

  it('records each run with its result and duration, and runs a task asked to run now once', async () => {
    const failing = {
      computeStat: async (c: StatComputation) => {
        if (c.taskId === 'daily') throw new Error('chDB is away');
        computed.push(c);
      },
    } as Pick<TimeSeriesStore, 'computeStat'>;
    const scheduler = createStatScheduler({ db: sut.db, timeseries: failing as TimeSeriesStore });
    expect(await scheduler.tick(new Date('2026-03-03T15:59:30Z'), new Date('2026-03-03T16:00:30Z'))).toEqual(['hourly']);
    const runs = await statTaskRuns(sut.db, 't1');
    expect(runs.get('hourly')).toMatchObject({ lastResult: 'success', lastError: null, requested: false });
    expect(runs.get('hourly')!.durationMs).toBeGreaterThanOrEqual(0);
    expect(runs.get('daily')).toMatchObject({ lastResult: 'failed', lastError: 'chDB is away' });

    // "Run now" from the screen: a request row, taken once.
    await sut.db.query(`update stat_task_runs set requested_at = now() where task_id = 'hourly'`);
    const at = new Date('2026-03-04T10:20:00Z');
    computed.length = 0;
    expect(await scheduler.runRequested(at)).toEqual(['hourly']);
    expect(computed).toEqual([expect.objectContaining({ taskId: 'hourly', from: new Date(at.getTime() - STAT_LATENESS_MS), to: at })]);
    expect(await scheduler.runRequested(at)).toEqual([]);
    expect((await statTaskRuns(sut.db, 't1')).get('hourly')!.requested).toBe(false);
  });
});

describe('the statistic worker', () => {
  it('runs each pass what was asked now, the tasks whose cycle ended once a minute turns, then the backfills, telling their progress', async () => {
    const published: Array<{ channel: string; tenantId: string; message: unknown }> = [];
    const live = {
      listening: (channel: string) => channel === 'stat.backfill',
      publish: (channel: string, delivery: { tenantId: string }, message: unknown) =>
        void published.push({ channel, tenantId: delivery.tenantId, message }),
    };
    const worker = createStatWorker({ db: sut.db, timeseries, live, since: new Date('2026-03-05T03:59:10Z') });
    // Within the minute: nothing ended, nothing asked.
    expect(await worker.pass(new Date('2026-03-05T03:59:40Z'))).toEqual({ requested: [], ended: null, chunks: 0 });
    // The hour ends in the next minute; and the daily task asked to run now, and backfilled over three past days.
    await sut.db.query(
      `insert into stat_task_runs (task_id, tenant_id, requested_at) values ('daily', 't1', now())
       on conflict (task_id) do update set requested_at = now()`,
    );
    const backfill = { taskId: 'daily', backfillId: 'bf1', from: '2026-02-28T16:00:00.000Z', to: '2026-03-03T16:00:00.000Z' };
    await sut.given(statTasksProjection, { type: 'StatTaskBackfillRequested', data: backfill } satisfies StatTaskEvent, { tenantId: 't1' });
    computed.length = 0;
    expect(await worker.pass(new Date('2026-03-05T04:00:10Z'))).toEqual({
      requested: ['daily'],
      ended: ['hourly', 'alarms', 'alarmingDevices'],
      chunks: 3,
    });
    expect(computed.map((c) => [c.taskId, c.from.toISOString(), c.to.toISOString()])).toEqual([
      ['daily', '2026-03-05T03:00:10.000Z', '2026-03-05T04:00:10.000Z'],
      ['hourly', '2026-03-05T03:00:10.000Z', '2026-03-05T03:59:10.001Z'],
      ['daily', '2026-02-28T16:00:00.000Z', '2026-03-01T16:00:00.000Z'],
      ['daily', '2026-03-01T16:00:00.000Z', '2026-03-02T16:00:00.000Z'],
      ['daily', '2026-03-02T16:00:00.000Z', '2026-03-03T16:00:00.000Z'],
    ]);
    const message = (status: string, progress: number) => ({
      channel: 'stat.backfill',
      tenantId: 't1',
      message: { taskId: 'daily', from: backfill.from, to: backfill.to, status, progress },
    });
    expect(published).toEqual([message('running', 1 / 3), message('running', 2 / 3), message('done', 1)]);
    expect((await statTaskById(sut.db, 't1', 'daily'))?.backfill).toMatchObject({ finished: 'done', doneUntil: new Date(backfill.to) });
  });
});

describe('alarm statistics', () => {
  const w = (iso: string) => new Date(iso);
  beforeAll(async () => {
    put.length = 0;
    // The window 03:00-04:00 UTC (11:00-12:00 in Shanghai): A twice on temp, B once on temp, C once on humidity.
    await raise('t1', 'h1', 'dev-A', 'temp', '2026-03-02T03:10:00Z');
    await raise('t1', 'h2', 'dev-A', 'temp', '2026-03-02T03:20:00Z');
    await raise('t1', 'h3', 'dev-B', 'temp', '2026-03-02T03:59:59Z');
    await raise('t1', 'h4', 'dev-C', 'humidity', '2026-03-02T03:30:00Z');
    // Outside it (the window before, the one after), and another tenant's.
    await raise('t1', 'h5', 'dev-B', 'temp', '2026-03-02T02:59:59Z');
    await raise('t1', 'h6', 'dev-A', 'temp', '2026-03-02T04:00:00Z');
    await raise('t2', 'h7', 'dev-A', 'temp', '2026-03-02T03:15:00Z');
    // Either side of Monday 00:00 in Shanghai (Sunday 16:00 UTC).
    await raise('t1', 'k1', 'dev-A', 'temp', '2026-03-01T15:59:59Z');
    await raise('t1', 'k2', 'dev-A', 'temp', '2026-03-01T16:00:00Z');
  });

  it('counts the alarms raised per device, and the alarming devices of the tenant, in the window that closed', async () => {
    const scheduler = createStatScheduler({ db: sut.db, timeseries });
    await scheduler.tick(new Date('2026-03-02T03:59:30Z'), new Date('2026-03-02T04:00:30Z'));
    const hour = w('2026-03-02T03:00:00Z');
    expect(put.find((p) => p.taskId === 'alarms')!.points).toEqual([
      { windowStart: hour, key: 'dev-A', value: 2, samples: 2 },
      { windowStart: hour, key: 'dev-B', value: 1, samples: 1 },
      { windowStart: hour, key: 'dev-C', value: 1, samples: 1 },
    ]);
    expect(put.find((p) => p.taskId === 'alarmingDevices')!.points).toEqual([{ windowStart: hour, key: 't1', value: 2, samples: 3 }]);
  });

  it('cuts weeks at Monday 00:00 in the task zone', async () => {
    put.length = 0;
    const scheduler = createStatScheduler({ db: sut.db, timeseries });
    const task = (await statTaskById(sut.db, 't1', 'weeklyAlarms'))!;
    await scheduler.runTask(task, w('2026-02-27T00:00:00Z'), w('2026-03-03T00:00:00Z'));
    const weeks = put[0]!.points.filter((p) => p.key === 'dev-A');
    expect(weeks.map((p) => [p.windowStart.toISOString(), p.value])).toEqual([
      ['2026-02-22T16:00:00.000Z', 1],
      ['2026-03-01T16:00:00.000Z', 4],
    ]);
  });
});
