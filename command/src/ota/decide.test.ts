import { describe, expect, it } from 'vitest';
import type { OtaPlannedDevice, OtaTaskFile } from '@iot/contracts';
import { codeOf, scenario } from '../decider-testing.ts';
import { otaDeviceDecider, otaTaskDecider } from './decide.ts';
import type { OtaDeviceEvent } from './device.ts';
import type { OtaTaskEvent } from './task.ts';

const file: OtaTaskFile = {
  fileId: 'f1',
  name: 'fw-2.0.bin',
  fileType: 'upgrade',
  version: '2.0',
  size: 1024,
  sha256: 'ab',
  storageKey: 't/f1',
};
const devices: OtaPlannedDevice[] = ['d1', 'd2', 'd3', 'd4', 'd5'].map((id) => ({ deviceId: id, sn: `SN-${id}`, fromVersion: '1.0' }));
const created = (pauseSec = 0, failurePercent = 50): OtaTaskEvent => ({
  type: 'OtaTaskCreated',
  data: {
    taskId: 't1',
    name: 'To 2.0',
    file,
    target: { kind: 'devices', deviceIds: devices.map((d) => d.deviceId) },
    waves: { size: 2, pauseSec, failurePercent },
    devices,
  },
});
const wave = (n: number, ids: string[]): OtaTaskEvent => ({ type: 'OtaWaveStarted', data: { taskId: 't1', wave: n, deviceIds: ids } });
const settled = (deviceId: string, n: number, outcome: 'success' | 'fail' | 'cancel'): OtaTaskEvent => ({
  type: 'OtaTaskDeviceSettled',
  data: { taskId: 't1', deviceId, wave: n, outcome },
});
const at = '2026-01-01T00:00:00.000Z';
const task = scenario(otaTaskDecider);
const device = scenario(otaDeviceDecider);

describe('rollout task decider', () => {
  it('starts wave 1 from the plan, and no second wave while the first runs', () => {
    expect(task.given([created()]).when({ type: 'StartNextOtaWave', taskId: 't1', at })).toEqual([wave(1, ['d1', 'd2'])]);
    expect(task.given([created(), wave(1, ['d1', 'd2'])]).when({ type: 'StartNextOtaWave', taskId: 't1', at })).toEqual([]);
    expect(codeOf(() => task.given([]).when({ type: 'StartNextOtaWave', taskId: 't1', at }))).toBe('NOT_FOUND');
  });

  it('completes a wave once its devices settle and starts the next at once without a pause', () => {
    const given = [created(), wave(1, ['d1', 'd2']), settled('d1', 1, 'success')];
    expect(task.given(given).when({ type: 'SettleOtaDevice', taskId: 't1', deviceId: 'd2', outcome: 'fail', at })).toEqual([
      settled('d2', 1, 'fail'),
      { type: 'OtaWaveCompleted', data: { taskId: 't1', wave: 1, failed: 1, total: 2, nextWaveAt: at } },
      wave(2, ['d3', 'd4']),
    ]);
    // A settled device settles once.
    expect(
      task
        .given([...given, settled('d2', 1, 'fail')])
        .when({ type: 'SettleOtaDevice', taskId: 't1', deviceId: 'd2', outcome: 'success', at }),
    ).toEqual([]);
  });

  it('waits out the pause between waves', () => {
    const given = [created(60), wave(1, ['d1', 'd2']), settled('d1', 1, 'success')];
    const events = task.given(given).when({ type: 'SettleOtaDevice', taskId: 't1', deviceId: 'd2', outcome: 'success', at });
    expect(events.map((e) => e.type)).toEqual(['OtaTaskDeviceSettled', 'OtaWaveCompleted']);
    const after = [...given, ...events];
    expect(task.given(after).when({ type: 'StartNextOtaWave', taskId: 't1', at: '2026-01-01T00:00:59.000Z' })).toEqual([]);
    expect(task.given(after).when({ type: 'StartNextOtaWave', taskId: 't1', at: '2026-01-01T00:01:00.000Z' })).toEqual([
      wave(2, ['d3', 'd4']),
    ]);
  });

  it('stops the task (fail) when a wave fails past the threshold', () => {
    const given = [created(0, 40), wave(1, ['d1', 'd2']), settled('d1', 1, 'fail')];
    expect(task.given(given).when({ type: 'SettleOtaDevice', taskId: 't1', deviceId: 'd2', outcome: 'success', at })).toEqual([
      settled('d2', 1, 'success'),
      { type: 'OtaWaveCompleted', data: { taskId: 't1', wave: 1, failed: 1, total: 2, nextWaveAt: null } },
      { type: 'OtaTaskHalted', data: { taskId: 't1', wave: 1, failurePercent: 50 } },
      { type: 'OtaTaskFinished', data: { taskId: 't1', status: 'fail' } },
    ]);
  });

  it('finishes with success after the last wave', () => {
    const given = [
      created(),
      wave(1, ['d1', 'd2']),
      settled('d1', 1, 'success'),
      settled('d2', 1, 'success'),
      { type: 'OtaWaveCompleted', data: { taskId: 't1', wave: 1, failed: 0, total: 2, nextWaveAt: at } },
      wave(2, ['d3', 'd4']),
      settled('d3', 2, 'success'),
      settled('d4', 2, 'fail'),
      { type: 'OtaWaveCompleted', data: { taskId: 't1', wave: 2, failed: 1, total: 2, nextWaveAt: at } },
      wave(3, ['d5']),
    ] satisfies OtaTaskEvent[];
    expect(task.given(given).when({ type: 'SettleOtaDevice', taskId: 't1', deviceId: 'd5', outcome: 'success', at }).at(-1)).toEqual({
      type: 'OtaTaskFinished',
      data: { taskId: 't1', status: 'success' },
    });
  });

  it('pauses: the wave in flight completes, the next waits for resume; cancel ends it', () => {
    const paused: OtaTaskEvent = { type: 'OtaTaskPaused', data: { taskId: 't1' } };
    const given = [created(), wave(1, ['d1', 'd2']), paused, settled('d1', 1, 'success')];
    expect(
      task
        .given(given)
        .when({ type: 'SettleOtaDevice', taskId: 't1', deviceId: 'd2', outcome: 'success', at })
        .map((e) => e.type),
    ).toEqual(['OtaTaskDeviceSettled', 'OtaWaveCompleted']);
    expect(task.given(given).when({ type: 'StartNextOtaWave', taskId: 't1', at })).toEqual([]);
    expect(task.given(given).when({ type: 'PauseOtaTask', taskId: 't1' })).toEqual([]);
    expect(task.given(given).when({ type: 'ResumeOtaTask', taskId: 't1' })).toEqual([{ type: 'OtaTaskResumed', data: { taskId: 't1' } }]);
    const cancelled: OtaTaskEvent = { type: 'OtaTaskCancelled', data: { taskId: 't1' } };
    expect(task.given(given).when({ type: 'CancelOtaTask', taskId: 't1' })).toEqual([cancelled]);
    expect(codeOf(() => task.given([...given, cancelled]).when({ type: 'ResumeOtaTask', taskId: 't1' }))).toBe('OTA_TASK_STATE');
    expect(codeOf(() => task.given([...given, cancelled]).when({ type: 'PauseOtaTask', taskId: 't1' }))).toBe('OTA_TASK_STATE');
  });

  it('refuses a plan without devices', () => {
    expect(
      codeOf(() =>
        task.given([]).when({
          type: 'CreateOtaTask',
          taskId: 't1',
          name: 'x',
          file,
          target: { kind: 'group', groupId: 'g' },
          waves: { size: 1, pauseSec: 0, failurePercent: 0 },
          devices: [],
        }),
      ),
    ).toBe('OTA_NO_DEVICES');
  });
});

describe('rollout device decider', () => {
  const offered: OtaDeviceEvent = {
    type: 'OtaDeviceOffered',
    data: { taskId: 't1', deviceId: 'd1', sn: 'SN-d1', wave: 1, file, fromVersion: '1.0' },
  };
  const ids = { taskId: 't1', deviceId: 'd1' };

  it('records progress once per change, and done as success', () => {
    expect(device.given([offered]).when({ type: 'ReportOtaProgress', ...ids, stage: 'downloading', percent: 40 })).toEqual([
      { type: 'OtaDeviceProgressed', data: { ...ids, stage: 'downloading', percent: 40 } },
    ]);
    const progressed: OtaDeviceEvent = { type: 'OtaDeviceProgressed', data: { ...ids, stage: 'downloading', percent: 40 } };
    expect(device.given([offered, progressed]).when({ type: 'ReportOtaProgress', ...ids, stage: 'downloading', percent: 40 })).toEqual([]);
    expect(device.given([offered]).when({ type: 'ReportOtaDone', ...ids, version: '2.0' })).toEqual([
      { type: 'OtaDeviceSucceeded', data: { ...ids, version: '2.0' } },
    ]);
  });

  it('pauses offline and resumes on reconnect, or when the device reports again', () => {
    const paused: OtaDeviceEvent = { type: 'OtaDevicePaused', data: ids };
    expect(device.given([offered]).when({ type: 'PauseOtaDevice', ...ids })).toEqual([paused]);
    expect(device.given([offered, paused]).when({ type: 'PauseOtaDevice', ...ids })).toEqual([]);
    expect(device.given([offered, paused]).when({ type: 'ResumeOtaDevice', ...ids })).toEqual([{ type: 'OtaDeviceResumed', data: ids }]);
    expect(device.given([offered, paused]).when({ type: 'ReportOtaFailed', ...ids, reason: 'checksum' })).toEqual([
      { type: 'OtaDeviceResumed', data: ids },
      { type: 'OtaDeviceFailed', data: { ...ids, reason: 'checksum' } },
    ]);
  });

  it('ignores what comes after the end, or for a device never offered', () => {
    const failed: OtaDeviceEvent = { type: 'OtaDeviceFailed', data: { ...ids, reason: 'x' } };
    expect(device.given([offered, failed]).when({ type: 'ReportOtaDone', ...ids, version: '2.0' })).toEqual([]);
    expect(device.given([offered, failed]).when({ type: 'CancelOtaDevice', ...ids })).toEqual([]);
    expect(device.given([]).when({ type: 'ReportOtaDone', ...ids, version: '2.0' })).toEqual([]);
    expect(device.given([offered]).when({ type: 'OfferOtaDevice', ...ids, sn: 'SN-d1', wave: 1, file, fromVersion: null })).toEqual([]);
  });
});

describe('rollout task decider at scale', () => {
  it('settles 10,000 devices over two waves on counters, and the look-ahead at the end of a wave leaves the folded state alone', () => {
    const many: OtaPlannedDevice[] = Array.from({ length: 10_000 }, (_, i) => ({ deviceId: `d${i}`, sn: `SN${i}`, fromVersion: '1.0' }));
    const ids = many.map((d) => d.deviceId);
    const start: OtaTaskEvent = {
      type: 'OtaTaskCreated',
      data: {
        taskId: 't1',
        name: 'big',
        file,
        target: { kind: 'devices', deviceIds: ids },
        waves: { size: 5_000, pauseSec: 0, failurePercent: 50 },
        devices: many,
      },
    };
    let state = [start, wave(1, ids.slice(0, 5_000))].reduce(otaTaskDecider.evolve, otaTaskDecider.initialState);
    const finals: OtaTaskEvent[][] = [];
    for (const [i, deviceId] of ids.entries()) {
      const events = otaTaskDecider.decide(
        { type: 'SettleOtaDevice', taskId: 't1', deviceId, outcome: i % 4 === 0 ? 'fail' : 'success', at },
        state,
      );
      if (events.length > 1) finals.push(events.slice(1));
      state = events.reduce(otaTaskDecider.evolve, state);
    }
    expect(finals).toEqual([
      [
        { type: 'OtaWaveCompleted', data: { taskId: 't1', wave: 1, failed: 1_250, total: 5_000, nextWaveAt: at } },
        wave(2, ids.slice(5_000)),
      ],
      [
        { type: 'OtaWaveCompleted', data: { taskId: 't1', wave: 2, failed: 1_250, total: 5_000, nextWaveAt: null } },
        { type: 'OtaTaskFinished', data: { taskId: 't1', status: 'success' } },
      ],
    ]);
    expect([state.status, state.failed, [...state.settled.keys()].length]).toEqual(['success', 2_500, 10_000]);
  });
});
