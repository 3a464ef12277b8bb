import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sceneFields, type SceneEvent, type SceneRunEvent } from '@iot/contracts';
import { readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { sceneLogProjection } from './log.ts';
import { scenesProjection } from './scenes.ts';
import { enabledScenesWith, linkageLogPage, linkageLogRows, sceneById, sceneRunsDone } from './read.ts';

const fields = sceneFields.parse({
  name: 'pumps',
  triggers: [{ type: 'device', deviceId: 'd1', match: { kind: 'status', status: 'offline' } }],
  actions: [{ type: 'setProperty', deviceId: 'd2', identifier: 'switch', value: 1 }],
});
let sut: ReadModel;
const run = async (tenantId: string, runId: string, sceneId: string, at: string, finished?: Partial<SceneRunEvent['data']>) => {
  const start: SceneRunEvent = {
    type: 'SceneRunStarted',
    data: { runId, sceneId, sceneName: sceneId, triggerType: sceneId === 'timed' ? 'timing' : 'device', triggerContent: 'x' },
  };
  await sut.given(sceneLogProjection, start, { tenantId, at });
  await sut.given(scenesProjection, start, { tenantId, at });
  if (finished)
    await sut.given(
      sceneLogProjection,
      { type: 'SceneRunFinished', data: { runId, sceneId, conditions: [], actions: [], result: 'success', durationMs: 5, ...finished } },
      { tenantId, at },
    );
};

beforeAll(async () => {
  sut = await readModelOf(scenesProjection, sceneLogProjection);
  const events: Array<[string, SceneEvent]> = [
    ['t1', { type: 'SceneCreated', data: { sceneId: 'pumps', enabled: false, ...fields } }],
    [
      't1',
      {
        type: 'SceneCreated',
        data: { sceneId: 'timed', enabled: true, ...fields, triggers: [{ type: 'timing', cron: '0 * * * *', timeZone: 'UTC' }] },
      },
    ],
    ['t1', { type: 'SceneEnabled', data: { sceneId: 'pumps' } }],
    ['t2', { type: 'SceneCreated', data: { sceneId: 'theirs', enabled: false, ...fields } }],
  ];
  for (const [tenantId, event] of events) await sut.given(scenesProjection, event, { tenantId });
  await run('t1', 'r1', 'pumps', '2026-03-01T10:00:00Z', { result: 'success' });
  await run('t1', 'r2', 'pumps', '2026-03-01T11:00:00Z', { result: 'skipped' });
  await run('t1', 'r3', 'timed', '2026-03-02T10:00:00Z', { result: 'partial', durationMs: 40 });
  await run('t1', 'r4', 'pumps', '2026-03-03T10:00:00Z');
  await run('t2', 'r5', 'theirs', '2026-03-01T10:00:00Z', { result: 'success' });
});
afterAll(async () => sut?.drop());

describe('the scenes read module', () => {
  it('keeps a scene of its tenant with its latest run, and lists the enabled ones by trigger type across tenants', async () => {
    expect(await sceneById(sut.db, 't1', 'pumps')).toMatchObject({ status: 'enabled', lastRunAt: new Date('2026-03-03T10:00:00Z') });
    expect(await sceneById(sut.db, 't2', 'pumps')).toBeNull();
    expect((await enabledScenesWith(sut.db, 'device')).map((s) => s.id)).toEqual(['pumps']);
    expect((await enabledScenesWith(sut.db, 'timing')).map((s) => s.id)).toEqual(['timed']);
  });

  it('filters the linkage log by scene, result, trigger type and time range, newest first, a tenant’s own only', async () => {
    const ids = async (filter: Parameters<typeof linkageLogPage>[2]) =>
      (await linkageLogPage(sut.db, 't1', filter, { page: 1, pageSize: 20, order: 'desc' })).rows.map((r) => r.id);
    expect(await ids({})).toEqual(['r4', 'r3', 'r2', 'r1']);
    expect(await ids({ sceneId: 'pumps' })).toEqual(['r4', 'r2', 'r1']);
    expect(await ids({ result: 'skipped' })).toEqual(['r2']);
    expect(await ids({ result: 'running' })).toEqual(['r4']);
    expect(await ids({ triggerType: 'timing' })).toEqual(['r3']);
    expect(await ids({ from: '2026-03-01T10:30:00Z', to: '2026-03-03T00:00:00Z' })).toEqual(['r3', 'r2']);
    const partial = (await linkageLogPage(sut.db, 't1', { sceneId: 'timed' }, { page: 1, pageSize: 20, order: 'desc' })).rows[0];
    expect(partial).toMatchObject({ result: 'partial', durationMs: 40, triggerType: 'timing' });
  });

  it('streams the export page after page, and counts the runs that did something (a rotation’s turn)', async () => {
    const all: string[] = [];
    for await (const row of linkageLogRows(sut.db, 't1', {}, { sort: 'time', order: 'asc' })) all.push(row.id);
    expect(all).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect(await sceneRunsDone(sut.db, 't1', 'pumps')).toBe(1);
  });
});
