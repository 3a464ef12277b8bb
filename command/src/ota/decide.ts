import {
  DomainError,
  type OtaFileRef,
  type OtaTaskFile,
  type OtaOutcome,
  type OtaPlannedDevice,
  type OtaStage,
  type OtaTarget,
  type OtaWaves,
} from '@iot/contracts';
import { unreachable, type Decider } from '../decider.ts';
import { evolveDevice, initialDeviceState, isSettled, type OtaDeviceEvent, type OtaDeviceState } from './device.ts';
import { evolve, initialState, waveCountOf, waveDevices, waveSizeOf, type OtaTaskEvent, type OtaTaskState } from './task.ts';

export type OtaTaskCommand =
  | {
      type: 'CreateOtaTask';
      taskId: string;
      name: string;
      file: OtaTaskFile;
      target: OtaTarget;
      waves: OtaWaves;
      devices: OtaPlannedDevice[];
    }
  /** Starts the next wave when its time has come (`at`): a no-op while paused, stopped, or a wave still runs. */
  | { type: 'StartNextOtaWave'; taskId: string; at: string }
  | { type: 'SettleOtaDevice'; taskId: string; deviceId: string; outcome: OtaOutcome; at: string }
  | { type: 'PauseOtaTask'; taskId: string }
  | { type: 'ResumeOtaTask'; taskId: string }
  | { type: 'CancelOtaTask'; taskId: string };

const live = (state: OtaTaskState) => {
  if (!state.exists) throw new DomainError('NOT_FOUND');
  return state;
};
const running = (state: OtaTaskState) => state.status === 'nonExecution' || state.status === 'executing' || state.status === 'pause';

function startWave(taskId: string, state: OtaTaskState): OtaTaskEvent {
  const wave = state.wave + 1;
  return { type: 'OtaWaveStarted', data: { taskId, wave, deviceIds: waveDevices(state, wave).map((d) => d.deviceId) } };
}

function startNext(command: { taskId: string; at: string }, state: OtaTaskState): OtaTaskEvent[] {
  if (state.status !== 'nonExecution' && state.status !== 'executing') return [];
  if (!state.waveDone || state.wave >= waveCountOf(state)) return [];
  if (state.nextWaveAt && Date.parse(state.nextWaveAt) > Date.parse(command.at)) return [];
  return [startWave(command.taskId, state)];
}

/**
 * A device settled: once its wave's devices all have, the wave completes; past the failure threshold the task stops
 * (fail), after the last wave it finishes, otherwise the next wave starts now or after the pause between waves.
 */
function settle(command: Extract<OtaTaskCommand, { type: 'SettleOtaDevice' }>, state: OtaTaskState): OtaTaskEvent[] {
  const wave = state.waveOf.get(command.deviceId);
  if (wave === undefined || state.settled.has(command.deviceId)) return [];
  const { taskId } = command;
  const events: OtaTaskEvent[] = [
    { type: 'OtaTaskDeviceSettled', data: { taskId, deviceId: command.deviceId, wave, outcome: command.outcome } },
  ];
  if (state.status === 'cancel' || wave !== state.wave) return events;
  const total = waveSizeOf(state, wave);
  if (state.waveSettled + 1 < total) return events;
  const failed = state.waveFailed + (command.outcome === 'fail' ? 1 : 0);
  const last = wave >= waveCountOf(state);
  const halted = (failed * 100) / total > state.waves.failurePercent;
  const nextWaveAt = halted || last ? null : new Date(Date.parse(command.at) + state.waves.pauseSec * 1000).toISOString();
  events.push({ type: 'OtaWaveCompleted', data: { taskId, wave, failed, total, nextWaveAt } });
  if (halted) {
    events.push({ type: 'OtaTaskHalted', data: { taskId, wave, failurePercent: Math.round((failed * 10_000) / total) / 100 } });
    events.push({ type: 'OtaTaskFinished', data: { taskId, status: 'fail' } });
  } else if (last) {
    const allFailed = state.failed + (command.outcome === 'fail' ? 1 : 0);
    const status = (allFailed * 100) / state.devices.length > state.waves.failurePercent ? 'fail' : 'success';
    events.push({ type: 'OtaTaskFinished', data: { taskId, status } });
  } else if (state.waves.pauseSec === 0) {
    const next = events.reduce(evolve, state);
    if (next.status === 'executing') events.push(startWave(taskId, next));
  }
  return events;
}

export function decide(command: OtaTaskCommand, state: OtaTaskState): OtaTaskEvent[] {
  switch (command.type) {
    case 'CreateOtaTask': {
      if (state.exists) throw new DomainError('CONFLICT');
      if (command.devices.length === 0) throw new DomainError('OTA_NO_DEVICES');
      const { type: _type, ...data } = command;
      return [{ type: 'OtaTaskCreated', data }];
    }
    case 'StartNextOtaWave':
      return startNext(command, live(state));
    case 'SettleOtaDevice':
      return settle(command, live(state));
    case 'PauseOtaTask':
      if (live(state).status === 'pause') return [];
      if (!running(state)) throw new DomainError('OTA_TASK_STATE');
      return [{ type: 'OtaTaskPaused', data: { taskId: command.taskId } }];
    case 'ResumeOtaTask':
      if (live(state).status !== 'pause') {
        if (running(state)) return [];
        throw new DomainError('OTA_TASK_STATE');
      }
      return [{ type: 'OtaTaskResumed', data: { taskId: command.taskId } }];
    case 'CancelOtaTask':
      if (live(state).status === 'cancel') return [];
      if (!running(state)) throw new DomainError('OTA_TASK_STATE');
      return [{ type: 'OtaTaskCancelled', data: { taskId: command.taskId } }];
    default:
      return unreachable(command);
  }
}

export const otaTaskDecider: Decider<OtaTaskCommand, OtaTaskEvent, OtaTaskState> = { initialState, evolve, decide };
export const otaTaskStream = (tenantId: string, taskId: string) => `otaTask-${tenantId}.${taskId}`;

// ------------------------------------------------------------------------------------------ one device in one task
export type OtaDeviceCommand =
  | { type: 'OfferOtaDevice'; taskId: string; deviceId: string; sn: string; wave: number; file: OtaFileRef; fromVersion: string | null }
  | { type: 'ReportOtaProgress'; taskId: string; deviceId: string; stage: OtaStage; percent: number | null }
  | { type: 'ReportOtaDone'; taskId: string; deviceId: string; version: string | null }
  | { type: 'ReportOtaFailed'; taskId: string; deviceId: string; reason: string }
  | { type: 'PauseOtaDevice'; taskId: string; deviceId: string }
  | { type: 'ResumeOtaDevice'; taskId: string; deviceId: string }
  | { type: 'CancelOtaDevice'; taskId: string; deviceId: string };

/** A report from a device not offered this task, or already settled, changes nothing (a late or repeated message). */
export function decideDevice(command: OtaDeviceCommand, state: OtaDeviceState): OtaDeviceEvent[] {
  const { taskId, deviceId } = command;
  if (command.type === 'OfferOtaDevice') {
    if (state.exists) return [];
    const { type: _type, ...data } = command;
    return [{ type: 'OtaDeviceOffered', data }];
  }
  if (!state.exists || isSettled(state.status)) return [];
  // A device that reports is online: a pause it is still under ends first.
  const back: OtaDeviceEvent[] = state.status === 'pause' ? [{ type: 'OtaDeviceResumed', data: { taskId, deviceId } }] : [];
  switch (command.type) {
    case 'ReportOtaProgress':
      if (state.status !== 'pause' && state.stage === command.stage && state.percent === command.percent) return [];
      return [...back, { type: 'OtaDeviceProgressed', data: { taskId, deviceId, stage: command.stage, percent: command.percent } }];
    case 'ReportOtaDone':
      return [...back, { type: 'OtaDeviceSucceeded', data: { taskId, deviceId, version: command.version } }];
    case 'ReportOtaFailed':
      return [...back, { type: 'OtaDeviceFailed', data: { taskId, deviceId, reason: command.reason } }];
    case 'PauseOtaDevice':
      return state.status === 'executing' ? [{ type: 'OtaDevicePaused', data: { taskId, deviceId } }] : [];
    case 'ResumeOtaDevice':
      return back;
    case 'CancelOtaDevice':
      return [{ type: 'OtaDeviceCancelled', data: { taskId, deviceId } }];
    default:
      return unreachable(command);
  }
}

export const otaDeviceDecider: Decider<OtaDeviceCommand, OtaDeviceEvent, OtaDeviceState> = {
  initialState: initialDeviceState,
  evolve: evolveDevice,
  decide: decideDevice,
};
export const otaDeviceStream = (tenantId: string, taskId: string, deviceId: string) => `otaDevice-${tenantId}.${taskId}.${deviceId}`;
