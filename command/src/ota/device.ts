import type { FileTaskStatus, OtaDeviceEvent, OtaFileRef, OtaStage } from '@iot/contracts';

export type { OtaDeviceEvent };

/** One device in one rollout: where its upgrade is. */
export interface OtaDeviceState {
  exists: boolean;
  status: FileTaskStatus;
  stage: OtaStage | null;
  percent: number | null;
  sn: string;
  wave: number;
  file: OtaFileRef | null;
}

export const initialDeviceState: OtaDeviceState = {
  exists: false,
  status: 'nonExecution',
  stage: null,
  percent: null,
  sn: '',
  wave: 0,
  file: null,
};

/** Success, fail and cancel are final: nothing a device reports later changes them. */
export const isSettled = (status: FileTaskStatus) => status === 'success' || status === 'fail' || status === 'cancel';

export function evolveDevice(state: OtaDeviceState, event: OtaDeviceEvent): OtaDeviceState {
  switch (event.type) {
    case 'OtaDeviceOffered':
      return {
        ...initialDeviceState,
        exists: true,
        status: 'executing',
        stage: 'offered',
        sn: event.data.sn,
        wave: event.data.wave,
        file: event.data.file,
      };
    case 'OtaDeviceProgressed':
      return { ...state, status: 'executing', stage: event.data.stage, percent: event.data.percent };
    case 'OtaDevicePaused':
      return { ...state, status: 'pause' };
    case 'OtaDeviceResumed':
      return { ...state, status: 'executing' };
    case 'OtaDeviceSucceeded':
      return { ...state, status: 'success', percent: 100 };
    case 'OtaDeviceFailed':
      return { ...state, status: 'fail' };
    case 'OtaDeviceCancelled':
      return { ...state, status: 'cancel' };
    default:
      return state;
  }
}
