import { describe, expect, it } from 'vitest';
import { RESTART_EXPIRED, restartAck, restartTaskCreateBody, type RestartPlannedDevice } from '@iot/contracts';
import { codeOf, scenario } from '../decider-testing.ts';
import { restartTaskDecider } from './decide.ts';
import type { RestartTaskEvent } from './task.ts';

const devices: RestartPlannedDevice[] = ['d1', 'd2', 'd3'].map((id) => ({ deviceId: id, sn: `SN-${id}` }));
const taskTime = '2026-01-01T00:00:00.000Z';
const expiry = '2026-01-01T01:00:00.000Z';
const target = { kind: 'devices' as const, deviceIds: devices.map((d) => d.deviceId) };
const created: RestartTaskEvent = {
  type: 'RestartTaskCreated',
  data: { taskId: 't1', name: 'Nightly', target, taskTime, expiry, devices },
};
const started: RestartTaskEvent = { type: 'RestartTaskStarted', data: { taskId: 't1' } };
const sent = (deviceId: string): RestartTaskEvent => ({ type: 'RestartDeviceSent', data: { taskId: 't1', deviceId } });
const paused = (deviceId: string): RestartTaskEvent => ({ type: 'RestartDevicePaused', data: { taskId: 't1', deviceId } });
const succeeded = (deviceId: string): RestartTaskEvent => ({ type: 'RestartDeviceSucceeded', data: { taskId: 't1', deviceId } });
const failed = (deviceId: string, reason: string): RestartTaskEvent => ({
  type: 'RestartDeviceFailed',
  data: { taskId: 't1', deviceId, reason },
});
const finished = (status: 'success' | 'fail'): RestartTaskEvent => ({ type: 'RestartTaskFinished', data: { taskId: 't1', status } });
const task = scenario(restartTaskDecider);
const running = [created, started, sent('d1'), sent('d2'), paused('d3')];

describe('restart task decider', () => {
  it('refuses an expiry that is not later than the task time (spec §4), in the body and in the decider', () => {
    const create = { type: 'CreateRestartTask' as const, taskId: 't1', name: 'Nightly', target, devices, taskTime, expiry: taskTime };
    expect(codeOf(() => task.given([]).when(create))).toBe('RESTART_EXPIRY');
    expect(task.given([]).when({ ...create, expiry })).toEqual([created]);
    const body = restartTaskCreateBody.safeParse({ name: 'n', target, taskTime: expiry, expiry: taskTime });
    expect(body.success).toBe(false);
    expect(body.error?.issues[0]?.message).toBe('RESTART_EXPIRY');
  });

  it('refuses a task with no device', () => {
    const create = { type: 'CreateRestartTask' as const, taskId: 't1', name: 'n', target, devices: [], taskTime, expiry };
    expect(codeOf(() => task.given([]).when(create))).toBe('OTA_NO_DEVICES');
  });

  it('does nothing before the task time; at it, sends the online devices the restart and pauses the offline ones', () => {
    const start = { type: 'StartRestartTask' as const, taskId: 't1', online: ['d1', 'd2'] };
    expect(task.given([created]).when({ ...start, at: '2025-12-31T23:59:59.000Z' })).toEqual([]);
    expect(task.given([created]).when({ ...start, at: taskTime })).toEqual([started, sent('d1'), sent('d2'), paused('d3')]);
    expect(task.given(running).when({ ...start, at: taskTime })).toEqual([]);
  });

  it('retries a paused device that is back before the expiry, never after it, and never one already sent', () => {
    const retry = { type: 'RetryRestartDevice' as const, taskId: 't1', at: '2026-01-01T00:30:00.000Z' };
    expect(task.given(running).when({ ...retry, deviceId: 'd3' })).toEqual([sent('d3')]);
    expect(task.given(running).when({ ...retry, deviceId: 'd1' })).toEqual([]);
    expect(task.given(running).when({ ...retry, deviceId: 'd3', at: expiry })).toEqual([]);
  });

  it('records each acknowledgement, ignores a repeated or unsolicited one, and finishes when all settled', () => {
    const ack = { type: 'AcknowledgeRestart' as const, taskId: 't1', ok: true as const };
    expect(task.given(running).when({ ...ack, deviceId: 'd1' })).toEqual([succeeded('d1')]);
    expect(task.given([...running, succeeded('d1')]).when({ ...ack, deviceId: 'd1' })).toEqual([]);
    expect(task.given(running).when({ ...ack, deviceId: 'd3' })).toEqual([]);
    const allSent = [created, started, sent('d1'), sent('d2'), sent('d3'), succeeded('d1'), succeeded('d2')];
    expect(task.given(allSent).when({ ...ack, deviceId: 'd3' })).toEqual([succeeded('d3'), finished('success')]);
    expect(task.given(allSent).when({ type: 'AcknowledgeRestart', taskId: 't1', deviceId: 'd3', ok: false, reason: 'busy' })).toEqual([
      failed('d3', 'busy'),
      finished('fail'),
    ]);
  });

  it('at the expiry fails (expired) every device that did not acknowledge, and the task fails', () => {
    const expire = { type: 'ExpireRestartTask' as const, taskId: 't1' };
    const given = [...running, succeeded('d1')];
    expect(task.given(given).when({ ...expire, at: '2026-01-01T00:59:59.000Z' })).toEqual([]);
    expect(task.given(given).when({ ...expire, at: expiry })).toEqual([
      failed('d2', RESTART_EXPIRED),
      failed('d3', RESTART_EXPIRED),
      finished('fail'),
    ]);
  });

  it('cancels a task not ended, once; a finished task cannot be cancelled', () => {
    const cancel = { type: 'CancelRestartTask' as const, taskId: 't1' };
    const cancelled: RestartTaskEvent = { type: 'RestartTaskCancelled', data: { taskId: 't1' } };
    expect(task.given(running).when(cancel)).toEqual([cancelled]);
    expect(task.given([...running, cancelled]).when(cancel)).toEqual([]);
    expect(codeOf(() => task.given([...running, finished('fail')]).when(cancel))).toBe('OTA_TASK_STATE');
    expect(codeOf(() => task.given([]).when(cancel))).toBe('NOT_FOUND');
  });

  it("reads a device's acknowledgement from its reply", () => {
    expect(restartAck({})).toEqual({ ok: true });
    expect(restartAck(null)).toEqual({ ok: true });
    expect(restartAck({ ok: false, reason: 'battery low' })).toEqual({ ok: false, reason: 'battery low' });
  });
});
