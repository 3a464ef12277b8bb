import { describe, expect, it } from 'vitest';
import { sceneCondition, sceneFields } from '@iot/contracts';
import type { DispatchedCommand } from '@iot/contracts/ports/dispatch.ts';
import { compare, inTimeWindow, runScene, type SceneEnginePorts } from './engine.ts';
import type { SceneRecord } from './read.ts';

const sceneOf = (more: object): SceneRecord => ({
  id: 's1',
  tenantId: 't1',
  status: 'enabled',
  lastRunAt: null,
  createdAt: new Date(),
  updatedAt: new Date(),
  ...sceneFields.parse({
    name: 'x',
    triggers: [{ type: 'invoke' }],
    actions: [{ type: 'sceneStatus', sceneId: 's2', status: 'stopped' }],
    ...more,
  }),
});

function portsWith(over: Partial<SceneEnginePorts> = {}) {
  const sent: DispatchedCommand[] = [];
  const ports: SceneEnginePorts = {
    dispatch: async (command) => {
      sent.push(command);
      if (command.type === 'SendDeviceCommand' && command.deviceId === 'broken')
        throw Object.assign(new Error('x'), { code: 'COMMAND_INVALID' });
      return { position: '1', id: 'id' };
    },
    online: async (_t, id) => (id === 'gone' ? null : id === 'up'),
    latest: async () => ({ temp: 31 }),
    runsDone: async () => 3,
    notify: async (n) => (n.configId === 'gone' ? null : 2),
    now: () => new Date('2026-03-02T14:30:00Z'),
    ...over,
  };
  return { ports, sent };
}

describe('scene comparisons and time windows', () => {
  it('compares numbers by order and anything else by equality (spec §9 operators)', () => {
    expect(compare(31, 'gt', 30)).toBe(true);
    expect(compare('30', 'gte', 30)).toBe(true);
    expect(compare(30, 'lt', 30)).toBe(false);
    expect(compare('on', 'eq', 'on')).toBe(true);
    expect(compare('on', 'gt', 'off')).toBe(false);
    expect(compare(null, 'lte', 1)).toBe(false);
  });

  it('tells a window in the zone, one past midnight belonging to the day it started on', () => {
    const window = (from: string, to: string, weekdays: number[] = []) =>
      sceneCondition.parse({ type: 'time', from, to, weekdays, timeZone: 'Asia/Shanghai' }) as Extract<
        ReturnType<typeof sceneCondition.parse>,
        { type: 'time' }
      >;
    // 22:30 Monday 2 March 2026 in Shanghai.
    const at = new Date('2026-03-02T14:30:00Z');
    expect(inTimeWindow(window('22:00', '23:00'), at)).toBe(true);
    expect(inTimeWindow(window('08:00', '18:00'), at)).toBe(false);
    expect(inTimeWindow(window('21:00', '06:00', [1]), at)).toBe(true);
    // 01:00 Tuesday, in Monday night's window.
    expect(inTimeWindow(window('21:00', '06:00', [1]), new Date('2026-03-02T17:00:00Z'))).toBe(true);
    expect(inTimeWindow(window('21:00', '06:00', [2]), new Date('2026-03-02T17:00:00Z'))).toBe(false);
  });
});

describe('a scene run', () => {
  it('does nothing after a claim another process holds', async () => {
    const { ports, sent } = portsWith({ dispatch: async (c) => (sent.push(c), { position: null }) });
    expect(await runScene(ports, sceneOf({}), { triggerType: 'invoke', content: 'u', runId: 'r1' })).toBeNull();
    expect(sent.map((c) => c.type)).toEqual(['StartSceneRun']);
  });

  it('is skipped when its conditions do not hold, and logs each condition with its result', async () => {
    const { ports, sent } = portsWith();
    const scene = sceneOf({
      conditions: [
        { type: 'deviceStatus', deviceId: 'up', status: 'online' },
        { type: 'deviceStatus', deviceId: 'gone', status: 'online' },
      ],
    });
    expect(await runScene(ports, scene, { triggerType: 'invoke', content: 'u', runId: 'r1' })).toBe('skipped');
    const finish = sent.at(-1) as DispatchedCommand<'FinishSceneRun'>;
    expect(finish.conditions.map((c) => [c.result, c.detail])).toEqual([
      [true, 'online'],
      [false, 'device not found'],
    ]);
    expect(await runScene(ports, { ...scene, conditionMode: 'any' }, { triggerType: 'invoke', content: 'u', runId: 'r2' })).toBe('success');
  });

  it('gives a rotation’s turn to the next device and logs a failed action without stopping the others', async () => {
    const { ports, sent } = portsWith();
    const scene = sceneOf({
      conditions: [{ type: 'deviceProperty', deviceId: 'up', identifier: 'temp', operator: 'gt', value: 30 }],
      actions: [
        { type: 'rotation', deviceIds: ['p1', 'p2', 'p3'], identifier: 'running', onValue: 1, offValue: 0 },
        { type: 'setProperty', deviceId: 'broken', identifier: 'x', value: 1 },
      ],
    });
    expect(await runScene(ports, scene, { triggerType: 'invoke', content: 'u', runId: 'r1' })).toBe('partial');
    const commands = sent.filter((c): c is DispatchedCommand<'SendDeviceCommand'> => c.type === 'SendDeviceCommand');
    // Three runs done before: the fourth turn is p1's.
    expect(commands.map((c) => [c.deviceId, c.params.value])).toEqual([
      ['p1', 1],
      ['p2', 0],
      ['p3', 0],
      ['broken', 1],
    ]);
    const finish = sent.at(-1) as DispatchedCommand<'FinishSceneRun'>;
    expect(finish.actions.at(-1)).toMatchObject({ ok: false, error: 'COMMAND_INVALID' });
  });

  it('notifies through a configuration once per run, and logs a configuration that is gone as a failed action', async () => {
    const notified: Array<{ configId: string; sourceKey: string; sceneName: string; deviceId: string | null }> = [];
    const { ports, sent } = portsWith({
      notify: async ({ tenantId: _t, ...n }) => (notified.push(n), n.configId === 'gone' ? null : 1),
    });
    const scene = sceneOf({
      name: 'Night pump',
      actions: [
        { type: 'notify', configId: 'c1', deviceId: 'p1' },
        { type: 'notify', configId: 'gone' },
      ],
    });
    expect(await runScene(ports, scene, { triggerType: 'invoke', content: 'u', runId: 'r9' })).toBe('partial');
    expect(notified).toEqual([
      { configId: 'c1', sourceKey: 'scene-run:r9:notify:c1', sceneName: 'Night pump', deviceId: 'p1' },
      { configId: 'gone', sourceKey: 'scene-run:r9:notify:gone', sceneName: 'Night pump', deviceId: null },
    ]);
    const finish = sent.at(-1) as DispatchedCommand<'FinishSceneRun'>;
    expect(finish.actions.map((a) => [a.target, a.ok, a.error])).toEqual([
      ['c1', true, null],
      ['gone', false, 'NOT_FOUND'],
    ]);
  });
});
