import { describe, expect, it } from 'vitest';
import { codeOf, scenario } from '../decider-testing.ts';
import { statTaskDecider } from './decide.ts';
import type { StatTaskEvent, StatTaskFields } from './task.ts';

const task: StatTaskFields = {
  name: 'Hourly mean temperature',
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
const created: StatTaskEvent = { type: 'StatTaskCreated', data: { taskId: 's1', enabled: false, ...task } };
const { given } = scenario(statTaskDecider);

describe('statistic task decider', () => {
  it('creates a task stopped, and refuses a value fold over alarms', () => {
    expect(given([]).when({ type: 'CreateStatTask', taskId: 's1', fields: task, enabled: false })).toEqual([created]);
    expect(
      codeOf(() => given([]).when({ type: 'CreateStatTask', taskId: 's1', fields: { ...task, dataType: 'alarm' }, enabled: false })),
    ).toBe('STAT_TYPE_UNFIT');
    expect(
      given([]).when({ type: 'CreateStatTask', taskId: 's1', fields: { ...task, dataType: 'alarm', statType: 'count' }, enabled: false }),
    ).toHaveLength(1);
    expect(codeOf(() => given([created]).when({ type: 'CreateStatTask', taskId: 's1', fields: task, enabled: false }))).toBe('CONFLICT');
  });

  it('enables and stops once each; the same status again appends nothing', () => {
    expect(given([created]).when({ type: 'SetStatTaskStatus', taskId: 's1', status: 'enabled' })).toEqual([
      { type: 'StatTaskEnabled', data: { taskId: 's1' } },
    ]);
    expect(given([created]).when({ type: 'SetStatTaskStatus', taskId: 's1', status: 'stopped' })).toEqual([]);
    const enabled: StatTaskEvent = { type: 'StatTaskEnabled', data: { taskId: 's1' } };
    expect(given([created, enabled]).when({ type: 'SetStatTaskStatus', taskId: 's1', status: 'stopped' })).toEqual([
      { type: 'StatTaskStopped', data: { taskId: 's1' } },
    ]);
  });

  it('edits only what changed, and nothing after deletion', () => {
    expect(given([created]).when({ type: 'UpdateStatTask', taskId: 's1', fields: task })).toEqual([]);
    expect(given([created]).when({ type: 'UpdateStatTask', taskId: 's1', fields: { ...task, cycle: '1w' } })).toEqual([
      { type: 'StatTaskUpdated', data: { taskId: 's1', ...task, cycle: '1w' } },
    ]);
    const deleted: StatTaskEvent = { type: 'StatTaskDeleted', data: { taskId: 's1' } };
    expect(given([created]).when({ type: 'DeleteStatTask', taskId: 's1' })).toEqual([deleted]);
    expect(codeOf(() => given([created, deleted]).when({ type: 'UpdateStatTask', taskId: 's1', fields: task }))).toBe('NOT_FOUND');
    expect(codeOf(() => given([]).when({ type: 'DeleteStatTask', taskId: 's1' }))).toBe('NOT_FOUND');
  });

  it('asks for a backfill over a range, and cancels the latest once', () => {
    const asked: StatTaskEvent = {
      type: 'StatTaskBackfillRequested',
      data: { taskId: 's1', backfillId: 'b1', from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z' },
    };
    const backfill = { type: 'BackfillStatTask' as const, taskId: 's1', backfillId: 'b1', from: asked.data.from, to: asked.data.to };
    expect(given([created]).when(backfill)).toEqual([asked]);
    expect(codeOf(() => given([]).when(backfill))).toBe('NOT_FOUND');
    const cancel = { type: 'CancelStatTaskBackfill' as const, taskId: 's1' };
    expect(codeOf(() => given([created]).when(cancel))).toBe('NOT_FOUND');
    const cancelled: StatTaskEvent = { type: 'StatTaskBackfillCancelled', data: { taskId: 's1', backfillId: 'b1' } };
    expect(given([created, asked]).when(cancel)).toEqual([cancelled]);
    expect(given([created, asked, cancelled]).when(cancel)).toEqual([]);
  });
});
