import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatTaskEvent, StatTaskFields } from '@iot/contracts';
import { readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { statBackfillsSchema } from './backfill.ts';
import { statTasksProjection } from './tasks.ts';
import { enabledStatTasks, statTaskById, statTasksPage } from './read.ts';

const fields: StatTaskFields = {
  name: 'mean',
  dataType: 'deviceData',
  productId: 'p1',
  attribute: 'temperature',
  statType: 'avg',
  cycle: '1h',
  dimension: 'device',
  exclusion: { mode: 'none' },
  timeZone: 'Asia/Shanghai',
  remark: null,
};
let sut: ReadModel;
async function task(tenantId: string, taskId: string, more: Partial<StatTaskFields>, at: string) {
  const event: StatTaskEvent = { type: 'StatTaskCreated', data: { taskId, enabled: false, ...fields, name: taskId, ...more } };
  await sut.given(statTasksProjection, event, { tenantId, at });
}

beforeAll(async () => {
  sut = await readModelOf(statTasksProjection);
  // The backfill worker's progress, which the task reads join.
  await sut.db.query(statBackfillsSchema);
  await task('t1', 'hourly', {}, '2026-01-01T00:00:00Z');
  await task('t1', 'Weekly', { cycle: '1w', exclusion: { mode: 'stdDev', sigma: 3 } }, '2026-01-02T00:00:00Z');
  await task('t1', 'gone', {}, '2026-01-03T00:00:00Z');
  await task('t2', 'theirs', {}, '2026-01-04T00:00:00Z');
  const events: Array<[string, StatTaskEvent]> = [
    ['t1', { type: 'StatTaskEnabled', data: { taskId: 'hourly' } }],
    ['t1', { type: 'StatTaskEnabled', data: { taskId: 'Weekly' } }],
    ['t1', { type: 'StatTaskUpdated', data: { taskId: 'Weekly', ...fields, name: 'Weekly', cycle: '1w', statType: 'max' } }],
    ['t1', { type: 'StatTaskDeleted', data: { taskId: 'gone' } }],
    ['t2', { type: 'StatTaskEnabled', data: { taskId: 'theirs' } }],
    ['t2', { type: 'StatTaskStopped', data: { taskId: 'theirs' } }],
  ];
  for (const [tenantId, event] of events) await sut.given(statTasksProjection, event, { tenantId });
});
afterAll(async () => sut?.drop());

describe('the statistic tasks read module', () => {
  it('finds a task of its own tenant only, with its exclusion and status as stored; an edit keeps the status', async () => {
    expect(await statTaskById(sut.db, 't1', 'Weekly')).toMatchObject({
      cycle: '1w',
      statType: 'max',
      exclusion: { mode: 'none' },
      status: 'enabled',
      timeZone: 'Asia/Shanghai',
    });
    expect(await statTaskById(sut.db, 't2', 'Weekly')).toBeNull();
    expect(await statTaskById(sut.db, 't1', 'gone')).toBeNull();
  });

  it('pages a tenant’s tasks filtered by name, status and cycle', async () => {
    const ids = async (filter: Parameters<typeof statTasksPage>[2]) =>
      (await statTasksPage(sut.db, 't1', filter, { page: 1, pageSize: 20, order: 'asc', sort: 'createTime' })).rows.map((t) => t.id);
    expect(await ids({})).toEqual(['hourly', 'Weekly']);
    expect(await ids({ name: 'WEEK' })).toEqual(['Weekly']);
    expect(await ids({ cycle: '1h', status: 'enabled' })).toEqual(['hourly']);
    expect(await ids({ status: 'stopped' })).toEqual([]);
  });

  it('lists the enabled tasks of the cycles that end, across tenants', async () => {
    expect((await enabledStatTasks(sut.db, ['1h', '1w'])).map((t) => t.id)).toEqual(['hourly', 'Weekly']);
    expect((await enabledStatTasks(sut.db, ['1d'])).map((t) => t.id)).toEqual([]);
  });
});
