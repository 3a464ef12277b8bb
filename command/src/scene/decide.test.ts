import { describe, expect, it } from 'vitest';
import { sceneFields, type SceneRunStartedData } from '@iot/contracts';
import { codeOf, scenario } from '../decider-testing.ts';
import { sceneDecider, sceneRunDecider } from './decide.ts';
import type { SceneEvent, SceneFields } from './scene.ts';

const fields: SceneFields = sceneFields.parse({
  name: 'Night pumps',
  triggers: [{ type: 'timing', cron: '0 22 * * *' }, { type: 'invoke' }],
  conditions: [{ type: 'time', from: '21:00', to: '06:00' }],
  actions: [{ type: 'rotation', deviceIds: ['p1', 'p2'], identifier: 'running', onValue: 1, offValue: 0 }],
});
const created: SceneEvent = { type: 'SceneCreated', data: { sceneId: 's1', enabled: false, ...fields } };
const enabled: SceneEvent = { type: 'SceneEnabled', data: { sceneId: 's1' } };
const { given } = scenario(sceneDecider);

describe('the scene schema', () => {
  it('takes croner’s cron expressions and refuses others by SCENE_CRON_INVALID', () => {
    const timing = (cron: string) => sceneFields.safeParse({ ...fields, triggers: [{ type: 'timing', cron }] });
    expect(timing('*/5 * * * *').success).toBe(true);
    expect(timing('0 */10 * * * *').success).toBe(true);
    const refused = timing('61 * * * *');
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toBe('SCENE_CRON_INVALID');
  });

  it('tells triggers, conditions and actions by their type, with the spec’s comparison operators', () => {
    expect(
      sceneFields.safeParse({
        ...fields,
        triggers: [{ type: 'device', deviceId: 'd1', match: { kind: 'property', identifier: 'temp', operator: 'gte', value: 30 } }],
      }).success,
    ).toBe(true);
    expect(
      sceneFields.safeParse({
        ...fields,
        triggers: [{ type: 'device', deviceId: 'd1', match: { kind: 'property', identifier: 'temp', operator: 'between', value: 30 } }],
      }).success,
    ).toBe(false);
    expect(sceneFields.safeParse({ ...fields, actions: [{ type: 'rotation', deviceIds: ['only'], identifier: 'x' }] }).success).toBe(false);
  });
});

describe('the scene decider', () => {
  it('creates a scene stopped, once; a scene cannot stop itself', () => {
    expect(given([]).when({ type: 'CreateScene', sceneId: 's1', fields, enabled: false })).toEqual([created]);
    expect(codeOf(() => given([created]).when({ type: 'CreateScene', sceneId: 's1', fields, enabled: false }))).toBe('CONFLICT');
    const selfStop = { ...fields, actions: [{ type: 'sceneStatus' as const, sceneId: 's1', status: 'stopped' as const }] };
    expect(codeOf(() => given([]).when({ type: 'CreateScene', sceneId: 's1', fields: selfStop, enabled: false }))).toBe('SCENE_SELF');
  });

  it('enables and stops once each; the same status again appends nothing', () => {
    expect(given([created]).when({ type: 'SetSceneStatus', sceneId: 's1', status: 'enabled' })).toEqual([enabled]);
    expect(given([created]).when({ type: 'SetSceneStatus', sceneId: 's1', status: 'stopped' })).toEqual([]);
    expect(given([created, enabled]).when({ type: 'SetSceneStatus', sceneId: 's1', status: 'stopped' })).toEqual([
      { type: 'SceneStopped', data: { sceneId: 's1' } },
    ]);
  });

  it('is invoked only when enabled and holding an invoke trigger', () => {
    expect(codeOf(() => given([created]).when({ type: 'InvokeScene', sceneId: 's1', runId: 'r1' }))).toBe('SCENE_STOPPED');
    expect(given([created, enabled]).when({ type: 'InvokeScene', sceneId: 's1', runId: 'r1' })).toEqual([
      { type: 'SceneInvoked', data: { sceneId: 's1', runId: 'r1' } },
    ]);
    const timingOnly: SceneEvent = { type: 'SceneUpdated', data: { sceneId: 's1', ...fields, triggers: [fields.triggers[0]!] } };
    expect(codeOf(() => given([created, enabled, timingOnly]).when({ type: 'InvokeScene', sceneId: 's1', runId: 'r1' }))).toBe(
      'SCENE_NOT_INVOKABLE',
    );
  });

  it('edits only what changed, and nothing after deletion', () => {
    expect(given([created]).when({ type: 'UpdateScene', sceneId: 's1', fields })).toEqual([]);
    expect(given([created]).when({ type: 'UpdateScene', sceneId: 's1', fields: { ...fields, name: 'Day pumps' } })).toEqual([
      { type: 'SceneUpdated', data: { sceneId: 's1', ...fields, name: 'Day pumps' } },
    ]);
    const deleted: SceneEvent = { type: 'SceneDeleted', data: { sceneId: 's1' } };
    expect(given([created]).when({ type: 'DeleteScene', sceneId: 's1' })).toEqual([deleted]);
    expect(codeOf(() => given([created, deleted]).when({ type: 'UpdateScene', sceneId: 's1', fields }))).toBe('NOT_FOUND');
  });
});

describe('the scene run decider', () => {
  const run: SceneRunStartedData = { runId: 'r1', sceneId: 's1', sceneName: 'n', triggerType: 'timing', triggerContent: '0 22 * * *' };
  const finish = { runId: 'r1', sceneId: 's1', conditions: [], actions: [], result: 'success' as const, durationMs: 3 };
  const runs = scenario(sceneRunDecider);
  it('starts a run once: a second start is a conflict (another process has it); it finishes once', () => {
    const started = runs.given([]).when({ type: 'StartSceneRun', run });
    expect(started).toEqual([{ type: 'SceneRunStarted', data: run }]);
    expect(codeOf(() => runs.given(started).when({ type: 'StartSceneRun', run }))).toBe('CONFLICT');
    const finished = runs.given(started).when({ type: 'FinishSceneRun', run: finish });
    expect(finished).toHaveLength(1);
    expect(runs.given([...started, ...finished]).when({ type: 'FinishSceneRun', run: finish })).toEqual([]);
  });
});
