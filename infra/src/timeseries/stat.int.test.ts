import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatComputation, TelemetryRow } from './port.ts';
import { ChdbTimeSeriesStore } from './chdb.ts';
import { statRollupFor } from './stat.ts';

const tenantId = 't1';
const at = (iso: string) => new Date(iso);
const sample = (deviceId: string, variable: string, ts: string, value: number): TelemetryRow => ({
  tenantId,
  deviceId,
  variable,
  ts: at(ts),
  value,
  text: null,
});

/**
 * Asia/Shanghai is UTC+8: its week of Monday 2 March 2026 starts at 2026-03-01T16:00Z, a Sunday in UTC, so
 * the two samples of d1 on that Sunday (UTC) fall in two different weeks here.
 */
const W1 = '2026-02-22T16:00:00.000Z';
const W2 = '2026-03-01T16:00:00.000Z';
const series = [
  sample('d1', 'energy', '2026-03-01T15:30:00Z', 10),
  sample('d1', 'energy', '2026-03-01T16:30:00Z', 20),
  sample('d1', 'energy', '2026-03-02T01:00:00Z', 30),
  sample('d2', 'energy', '2026-03-01T16:10:00Z', 4),
  sample('d2', 'energy', '2026-03-03T00:00:00Z', 8),
  // Not in the group below.
  sample('d3', 'energy', '2026-03-02T00:00:00Z', 1000),
  // Either side of the first of March, Shanghai time.
  sample('d4', 'level', '2026-02-28T15:59:00Z', 1),
  sample('d4', 'level', '2026-02-28T16:01:00Z', 2),
  // Nine steady readings and one spike: mean 19, standard deviation 27.
  ...Array.from({ length: 9 }, (_, i) => sample('d5', 'temp', `2026-03-02T0${i}:00:00Z`, 10)),
  sample('d5', 'temp', '2026-03-02T09:30:00Z', 100),
];

describe('the source a statistic reads', () => {
  it('is the hourly rollup where whole hours fit, the 5-minute one for shorter cycles or half-hour zones, else the samples', () => {
    const none = { mode: 'none' as const };
    expect(statRollupFor({ statType: 'avg', exclusion: none, cycle: '1w' }, [480, 480])?.suffix).toBe('1h');
    expect(statRollupFor({ statType: 'avg', exclusion: none, cycle: '10m' }, [480, 480])?.suffix).toBe('5m');
    expect(statRollupFor({ statType: 'avg', exclusion: none, cycle: '1d' }, [330, 330])?.suffix).toBe('5m');
    expect(statRollupFor({ statType: 'distinctCount', exclusion: none, cycle: '1d' }, [480, 480])).toBeNull();
    expect(statRollupFor({ statType: 'avg', exclusion: { mode: 'stdDev', sigma: 3 }, cycle: '1d' }, [480, 480])).toBeNull();
  });
});

describe('statistic tasks computed in ClickHouse (chDB)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stat-'));
  let sut: ChdbTimeSeriesStore;
  let run = 0;

  /** Runs a computation as a task of its own and answers its results as `window key=value/samples`. */
  async function results(c: Partial<StatComputation> & Pick<StatComputation, 'statType' | 'cycle'>, taskId = `task${++run}`) {
    const computation: StatComputation = {
      tenantId,
      taskId,
      variable: 'energy',
      from: at('2026-02-23T00:00:00Z'),
      to: at('2026-03-05T00:00:00Z'),
      timeZone: 'Asia/Shanghai',
      exclusion: { mode: 'none' },
      keys: { kind: 'device', deviceIds: ['d1', 'd2'] },
      ...c,
    };
    await sut.computeStat(computation);
    const rows = await sut.statResults({ tenantId, taskId, from: at('2026-01-01T00:00:00Z'), to: at('2026-04-01T00:00:00Z'), limit: 100 });
    return rows.map(
      (r) => `${r.windowStart.toISOString()} ${r.key}=${r.value === null ? 'null' : Number(r.value.toFixed(4))}/${r.samples}`,
    );
  }

  beforeAll(async () => {
    sut = new ChdbTimeSeriesStore({ path: join(dataDir, 'chdb'), table: 'stat_series' });
    await sut.migrate();
    await sut.insertTelemetry(series);
  });

  afterAll(async () => {
    await sut.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('averages per device over weeks that start on Monday in Shanghai, from the hourly rollup and from the samples alike', async () => {
    const expected = [`${W1} d1=10/1`, `${W2} d1=25/2`, `${W2} d2=6/2`];
    expect(await results({ statType: 'avg', cycle: '1w' })).toEqual(expected);
    // A range wide enough to keep every sample only makes the computation read the samples themselves.
    expect(await results({ statType: 'avg', cycle: '1w', exclusion: { mode: 'range', min: -1e9, max: 1e9 } })).toEqual(expected);
  });

  it('folds each type over a group of devices: samples together, differences summed per device', async () => {
    const group = { keys: { kind: 'map' as const, keyOf: { d1: 'g1', d2: 'g1' } } };
    const w2 = async (statType: StatComputation['statType']) =>
      (await results({ statType, cycle: '1w', ...group })).filter((r) => r.startsWith(W2));
    expect(await w2('avg')).toEqual([`${W2} g1=15.5/4`]);
    expect(await w2('sum')).toEqual([`${W2} g1=62/4`]);
    expect(await w2('max')).toEqual([`${W2} g1=30/4`]);
    expect(await w2('min')).toEqual([`${W2} g1=4/4`]);
    expect(await w2('count')).toEqual([`${W2} g1=4/4`]);
    expect(await w2('start')).toEqual([`${W2} g1=4/4`]);
    expect(await w2('end')).toEqual([`${W2} g1=8/4`]);
    expect(await w2('history')).toEqual([`${W2} g1=8/4`]);
    expect(await w2('diff')).toEqual([`${W2} g1=14/4`]);
    expect(await w2('distinctCount')).toEqual([`${W2} g1=4/4`]);
    // The tenant: every device, d3 too.
    expect((await results({ statType: 'max', cycle: '1w', keys: { kind: 'tenant' } })).filter((r) => r.startsWith(W2))).toEqual([
      `${W2} t1=1000/5`,
    ]);
  });

  it('folds each type per device in one step, the same figures as each device its own group, from the rollup and the samples', async () => {
    const types = ['avg', 'sum', 'max', 'min', 'count', 'start', 'end', 'history', 'diff', 'distinctCount'] as const;
    const own = { kind: 'map' as const, keyOf: { d1: 'd1', d2: 'd2' } };
    for (const statType of types)
      for (const exclusion of [{ mode: 'none' as const }, { mode: 'range' as const, min: -1e9, max: 1e9 }]) {
        const perDevice = await results({ statType, cycle: '1d', exclusion });
        expect(perDevice.length, statType).toBe(4);
        expect(perDevice, `${statType} ${exclusion.mode}`).toEqual(await results({ statType, cycle: '1d', exclusion, keys: own }));
      }
  });

  it('aligns days, hours and months to Shanghai', async () => {
    expect(await results({ statType: 'count', cycle: '1d', keys: { kind: 'device', deviceIds: ['d1'] } })).toEqual([
      '2026-02-28T16:00:00.000Z d1=1/1',
      '2026-03-01T16:00:00.000Z d1=2/2',
    ]);
    expect(await results({ statType: 'sum', cycle: '10m', keys: { kind: 'device', deviceIds: ['d2'] } })).toEqual([
      '2026-03-01T16:10:00.000Z d2=4/1',
      '2026-03-03T00:00:00.000Z d2=8/1',
    ]);
    const months = { variable: 'level', from: at('2026-02-10T00:00:00Z'), to: at('2026-03-10T00:00:00Z') };
    expect(await results({ statType: 'end', cycle: '1M', keys: { kind: 'device', deviceIds: ['d4'] }, ...months })).toEqual([
      '2026-01-31T16:00:00.000Z d4=1/1',
      '2026-02-28T16:00:00.000Z d4=2/1',
    ]);
    expect(
      await results({ statType: 'end', cycle: '1M', timeZone: 'UTC', keys: { kind: 'device', deviceIds: ['d4'] }, ...months }),
    ).toEqual(['2026-02-01T00:00:00.000Z d4=2/2']);
  });

  it('recomputes a window when a late sample arrives, replacing its result', async () => {
    const taskId = 'late';
    expect(await results({ statType: 'avg', cycle: '1w' }, taskId)).toEqual([`${W1} d1=10/1`, `${W2} d1=25/2`, `${W2} d2=6/2`]);
    await sut.insertTelemetry([sample('d1', 'energy', '2026-03-04T00:00:00Z', 50)]);
    expect(
      await results({ statType: 'avg', cycle: '1w', from: at('2026-03-04T00:00:00Z'), to: at('2026-03-04T00:00:01Z') }, taskId),
    ).toEqual([`${W1} d1=10/1`, `${W2} d1=33.3333/3`, `${W2} d2=6/2`]);
  });

  it('forgets the results of one task only', async () => {
    const all = { from: at('2026-01-01T00:00:00Z'), to: at('2026-04-01T00:00:00Z'), limit: 100, tenantId };
    expect((await sut.statResults({ ...all, taskId: 'late' })).length).toBe(3);
    const other = (await sut.statResults({ ...all, taskId: 'task1' })).length;
    expect(other).toBeGreaterThan(0);
    await sut.deleteStatResults(tenantId, 'late');
    expect(await sut.statResults({ ...all, taskId: 'late' })).toEqual([]);
    expect((await sut.statResults({ ...all, taskId: 'task1' })).length).toBe(other);
  });

  it('keeps results computed elsewhere (alarm statistics), a second put of a window replacing the first', async () => {
    const all = { from: at('2026-01-01T00:00:00Z'), to: at('2026-04-01T00:00:00Z'), limit: 100, tenantId, taskId: 'alarms' };
    await sut.putStatResults(tenantId, 'alarms', [
      { windowStart: at(W1), key: 'd1', value: 2, samples: 2 },
      { windowStart: at(W2), key: 'd1', value: 1, samples: 1 },
    ]);
    await sut.putStatResults(tenantId, 'alarms', [{ windowStart: at(W2), key: 'd1', value: 3, samples: 3 }]);
    await sut.putStatResults(tenantId, 'alarms', []);
    expect(await sut.statResults(all)).toEqual([
      { windowStart: at(W1), key: 'd1', value: 2, samples: 2 },
      { windowStart: at(W2), key: 'd1', value: 3, samples: 3 },
    ]);
    expect(await sut.statResults({ ...all, tenantId: 't2' })).toEqual([]);
  });

  it('leaves out abnormal data: outside the range, or beyond N standard deviations of the window', async () => {
    const spike = { variable: 'temp', cycle: '1d' as const, keys: { kind: 'device' as const, deviceIds: ['d5'] } };
    expect(await results({ statType: 'avg', ...spike })).toEqual(['2026-03-01T16:00:00.000Z d5=19/10']);
    expect(await results({ statType: 'avg', ...spike, exclusion: { mode: 'stdDev', sigma: 2 } })).toEqual([
      '2026-03-01T16:00:00.000Z d5=10/9',
    ]);
    expect(await results({ statType: 'max', ...spike, exclusion: { mode: 'range', min: 0, max: 50 } })).toEqual([
      '2026-03-01T16:00:00.000Z d5=10/9',
    ]);
  });
});
