import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatTaskEvent, StatTaskFields } from '@iot/contracts';
import type { StatComputation, TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import { readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { statTasksProjection } from './tasks.ts';
import { createStatScheduler, STAT_LATENESS_MS, statWindowName } from './scheduler.ts';
import { statTaskRuns, statTaskRunsSchema } from './runs.ts';

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
const timeseries = { computeStat: async (c: StatComputation) => void computed.push(c) } as Pick<TimeSeriesStore, 'computeStat'>;

beforeAll(async () => {
  sut = await readModelOf(statTasksProjection);
  // The scheduler's runs table (owner stat.runs): what System → tasks reads of each run.
  await sut.db.query(statTaskRunsSchema);
  const tasks: Array<[string, Partial<StatTaskFields>, boolean]> = [
    ['hourly', {}, true],
    ['daily', { cycle: '1d' }, true],
    ['stopped', {}, false],
    ['alarms', { dataType: 'alarm', statType: 'count' }, true],
  ];
  for (const [taskId, more, enabled] of tasks) {
    const event: StatTaskEvent = { type: 'StatTaskCreated', data: { taskId, enabled, ...fields, ...more } };
    await sut.given(statTasksProjection, event, { tenantId: 't1' });
  }
});
afterAll(async () => sut?.drop());

describe('the statistic scheduler', () => {
  it('runs the enabled tasks whose cycle ended between two ticks, over the window that closed and the late margin', async () => {
    const scheduler = createStatScheduler({ db: sut.db, timeseries: timeseries as TimeSeriesStore });
    const previous = new Date('2026-03-02T03:59:30Z');
    const now = new Date('2026-03-02T04:00:30Z');
    expect(await scheduler.tick(previous, now)).toEqual(['hourly']);
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
    expect(await scheduler.tick(new Date('2026-03-02T15:59:30Z'), new Date('2026-03-02T16:00:30Z'))).toEqual(['hourly', 'daily']);
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
