import { DomainError, RESTART_EXPIRED, type OtaTarget, type RestartPlannedDevice } from '@iot/contracts';
import { unreachable, type Decider } from '../decider.ts';
import { evolve, initialState, isSettled, type RestartTaskEvent, type RestartTaskState } from './task.ts';

export type RestartTaskCommand =
  | {
      type: 'CreateRestartTask';
      taskId: string;
      name: string;
      target: OtaTarget;
      taskTime: string;
      expiry: string;
      devices: RestartPlannedDevice[];
    }
  /** At the task time: `online` devices are sent the restart, the others paused until they are back. */
  | { type: 'StartRestartTask'; taskId: string; at: string; online: readonly string[] }
  /** A paused device is reachable again: sent the restart, unless the task expired. */
  | { type: 'RetryRestartDevice'; taskId: string; deviceId: string; at: string }
  | { type: 'AcknowledgeRestart'; taskId: string; deviceId: string; ok: true }
  | { type: 'AcknowledgeRestart'; taskId: string; deviceId: string; ok: false; reason: string }
  /** At the expiry: the devices that have not acknowledged fail (expired). */
  | { type: 'ExpireRestartTask'; taskId: string; at: string }
  | { type: 'CancelRestartTask'; taskId: string };

const live = (state: RestartTaskState) => {
  if (!state.exists) throw new DomainError('NOT_FOUND');
  return state;
};
const running = (state: RestartTaskState) => state.status === 'nonExecution' || state.status === 'executing';

/** The task finishes once every device settled: success when all restarted, fail otherwise. */
function finishIfDone(taskId: string, state: RestartTaskState, events: RestartTaskEvent[]): RestartTaskEvent[] {
  const next = events.reduce(evolve, state);
  const statuses = [...next.deviceStatus.values()];
  if (next.status !== 'executing' || !statuses.every(isSettled)) return events;
  const status = statuses.every((s) => s === 'success') ? 'success' : 'fail';
  return [...events, { type: 'RestartTaskFinished', data: { taskId, status } }];
}

export function decide(command: RestartTaskCommand, state: RestartTaskState): RestartTaskEvent[] {
  const { taskId } = command;
  switch (command.type) {
    case 'CreateRestartTask': {
      if (state.exists) throw new DomainError('CONFLICT');
      if (Date.parse(command.expiry) <= Date.parse(command.taskTime)) throw new DomainError('RESTART_EXPIRY', { field: 'expiry' });
      if (command.devices.length === 0) throw new DomainError('OTA_NO_DEVICES');
      const { type: _type, ...data } = command;
      return [{ type: 'RestartTaskCreated', data }];
    }
    case 'StartRestartTask': {
      if (live(state).status !== 'nonExecution' || Date.parse(command.at) < Date.parse(state.taskTime)) return [];
      const online = new Set(command.online);
      const events: RestartTaskEvent[] = [{ type: 'RestartTaskStarted', data: { taskId } }];
      for (const { deviceId } of state.devices)
        events.push(
          online.has(deviceId)
            ? { type: 'RestartDeviceSent', data: { taskId, deviceId } }
            : { type: 'RestartDevicePaused', data: { taskId, deviceId } },
        );
      return events;
    }
    case 'RetryRestartDevice':
      if (live(state).status !== 'executing' || state.deviceStatus.get(command.deviceId) !== 'pause') return [];
      if (Date.parse(command.at) >= Date.parse(state.expiry)) return [];
      return [{ type: 'RestartDeviceSent', data: { taskId, deviceId: command.deviceId } }];
    case 'AcknowledgeRestart': {
      // An acknowledgement of a device never sent the restart, or already settled, changes nothing (a late or repeated reply).
      if (live(state).status !== 'executing' || state.deviceStatus.get(command.deviceId) !== 'executing') return [];
      const { deviceId } = command;
      return finishIfDone(taskId, state, [
        command.ok
          ? { type: 'RestartDeviceSucceeded', data: { taskId, deviceId } }
          : { type: 'RestartDeviceFailed', data: { taskId, deviceId, reason: command.reason } },
      ]);
    }
    case 'ExpireRestartTask': {
      if (live(state).status !== 'executing' || Date.parse(command.at) < Date.parse(state.expiry)) return [];
      const events: RestartTaskEvent[] = [];
      for (const [deviceId, status] of state.deviceStatus)
        if (!isSettled(status)) events.push({ type: 'RestartDeviceFailed', data: { taskId, deviceId, reason: RESTART_EXPIRED } });
      return finishIfDone(taskId, state, events);
    }
    case 'CancelRestartTask':
      if (live(state).status === 'cancel') return [];
      if (!running(state)) throw new DomainError('OTA_TASK_STATE');
      return [{ type: 'RestartTaskCancelled', data: { taskId } }];
    default:
      return unreachable(command);
  }
}

export const restartTaskDecider: Decider<RestartTaskCommand, RestartTaskEvent, RestartTaskState> = { initialState, evolve, decide };
export const restartTaskStream = (tenantId: string, taskId: string) => `restartTask-${tenantId}.${taskId}`;
