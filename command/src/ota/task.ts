import { AppendMap } from '../shared/append-map.ts';
import type { FileTaskStatus, OtaTaskFile, OtaOutcome, OtaPlannedDevice, OtaTaskEvent, OtaWaves } from '@iot/contracts';

export type { OtaTaskEvent };

/** A rollout as its decider sees it: the frozen plan, which wave each device is in, and what settled. */
export interface OtaTaskState {
  exists: boolean;
  status: FileTaskStatus;
  name: string;
  file: OtaTaskFile | null;
  waves: OtaWaves;
  devices: OtaPlannedDevice[];
  /** The wave running or last run (0: none started). */
  wave: number;
  /** Whether the current wave's devices have all settled. */
  waveDone: boolean;
  nextWaveAt: string | null;
  waveOf: AppendMap<string, number>;
  settled: AppendMap<string, OtaOutcome>;
  /** The current wave's settled devices, and how many of them failed. */
  waveSettled: number;
  waveFailed: number;
  /** Failed devices over every wave. */
  failed: number;
}

export const initialState: OtaTaskState = {
  exists: false,
  status: 'nonExecution',
  name: '',
  file: null,
  waves: { size: 100, pauseSec: 0, failurePercent: 20 },
  devices: [],
  wave: 0,
  waveDone: true,
  nextWaveAt: null,
  waveOf: AppendMap.empty(),
  settled: AppendMap.empty(),
  waveSettled: 0,
  waveFailed: 0,
  failed: 0,
};

/** How many waves a plan of `devices` makes. */
export const waveCountOf = (state: Pick<OtaTaskState, 'devices' | 'waves'>) => Math.ceil(state.devices.length / state.waves.size);
/** How many devices wave `n` (1-based) holds. */
export const waveSizeOf = (state: Pick<OtaTaskState, 'devices' | 'waves'>, n: number) =>
  Math.max(0, Math.min(state.waves.size, state.devices.length - (n - 1) * state.waves.size));
/** The devices of wave `n` (1-based), in the plan's order. */
export const waveDevices = (state: Pick<OtaTaskState, 'devices' | 'waves'>, n: number) =>
  state.devices.slice((n - 1) * state.waves.size, n * state.waves.size);

// A settled device costs O(1) (append maps and counters), not a copy of what settled before: 10,000 devices make 10,000.
export function evolve(state: OtaTaskState, event: OtaTaskEvent): OtaTaskState {
  switch (event.type) {
    case 'OtaTaskCreated': {
      const { name, file, waves, devices } = event.data;
      return { ...initialState, exists: true, name, file, waves, devices };
    }
    case 'OtaWaveStarted': {
      let waveOf = state.waveOf;
      for (const id of event.data.deviceIds) waveOf = waveOf.with(id, event.data.wave);
      const { wave } = event.data;
      return { ...state, status: 'executing', wave, waveDone: false, nextWaveAt: null, waveOf, waveSettled: 0, waveFailed: 0 };
    }
    case 'OtaTaskDeviceSettled': {
      const { deviceId, wave, outcome } = event.data;
      const failed = outcome === 'fail' ? 1 : 0;
      const settled = state.settled.with(deviceId, outcome);
      if (wave !== state.wave) return { ...state, settled, failed: state.failed + failed };
      return {
        ...state,
        settled,
        failed: state.failed + failed,
        waveSettled: state.waveSettled + 1,
        waveFailed: state.waveFailed + failed,
      };
    }
    case 'OtaWaveCompleted':
      return { ...state, waveDone: true, nextWaveAt: event.data.nextWaveAt };
    case 'OtaTaskHalted':
      return { ...state, nextWaveAt: null };
    case 'OtaTaskPaused':
      return { ...state, status: 'pause' };
    case 'OtaTaskResumed':
      return { ...state, status: state.wave === 0 ? 'nonExecution' : 'executing' };
    case 'OtaTaskCancelled':
      return { ...state, status: 'cancel', nextWaveAt: null };
    case 'OtaTaskFinished':
      return { ...state, status: event.data.status, nextWaveAt: null };
    default:
      return state;
  }
}
