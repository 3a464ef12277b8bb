import type { FileTaskStatus, RestartPlannedDevice, RestartTaskEvent } from '@iot/contracts';

export type { RestartTaskEvent };

/** A restart task as its decider sees it: the frozen plan, its times, and each device's status (spec §4 file task states). */
export interface RestartTaskState {
  exists: boolean;
  status: FileTaskStatus;
  taskTime: string;
  expiry: string;
  devices: RestartPlannedDevice[];
  deviceStatus: Map<string, FileTaskStatus>;
}

export const initialState: RestartTaskState = {
  exists: false,
  status: 'nonExecution',
  taskTime: '',
  expiry: '',
  devices: [],
  deviceStatus: new Map(),
};

/** Success, fail and cancel are final. */
export const isSettled = (status: FileTaskStatus) => status === 'success' || status === 'fail' || status === 'cancel';

// The map is copied on write: a state folded once is never changed by a later evolve.
const withDevice = (state: RestartTaskState, deviceId: string, status: FileTaskStatus): RestartTaskState => {
  const deviceStatus = new Map(state.deviceStatus);
  deviceStatus.set(deviceId, status);
  return { ...state, deviceStatus };
};

export function evolve(state: RestartTaskState, event: RestartTaskEvent): RestartTaskState {
  switch (event.type) {
    case 'RestartTaskCreated': {
      const { taskTime, expiry, devices } = event.data;
      return {
        ...initialState,
        exists: true,
        taskTime,
        expiry,
        devices,
        deviceStatus: new Map(devices.map((d) => [d.deviceId, 'nonExecution'])),
      };
    }
    case 'RestartTaskStarted':
      return { ...state, status: 'executing' };
    case 'RestartDeviceSent':
      return withDevice(state, event.data.deviceId, 'executing');
    case 'RestartDevicePaused':
      return withDevice(state, event.data.deviceId, 'pause');
    case 'RestartDeviceSucceeded':
      return withDevice(state, event.data.deviceId, 'success');
    case 'RestartDeviceFailed':
      return withDevice(state, event.data.deviceId, 'fail');
    case 'RestartTaskCancelled': {
      const deviceStatus = new Map([...state.deviceStatus].map(([id, s]) => [id, isSettled(s) ? s : ('cancel' as const)]));
      return { ...state, status: 'cancel', deviceStatus };
    }
    case 'RestartTaskFinished':
      return { ...state, status: event.data.status };
    default:
      return state;
  }
}
