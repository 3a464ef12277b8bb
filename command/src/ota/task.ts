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
  waveOf: Map<string, number>;
  settled: Map<string, OtaOutcome>;
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
  waveOf: new Map(),
  settled: new Map(),
};

/** How many waves a plan of `devices` makes. */
export const waveCountOf = (state: Pick<OtaTaskState, 'devices' | 'waves'>) => Math.ceil(state.devices.length / state.waves.size);
/** The devices of wave `n` (1-based), in the plan's order. */
export const waveDevices = (state: Pick<OtaTaskState, 'devices' | 'waves'>, n: number) =>
  state.devices.slice((n - 1) * state.waves.size, n * state.waves.size);

// The maps are copied on write: a state folded once is never changed by a later evolve.
export function evolve(state: OtaTaskState, event: OtaTaskEvent): OtaTaskState {
  switch (event.type) {
    case 'OtaTaskCreated': {
      const { name, file, waves, devices } = event.data;
      return { ...initialState, exists: true, name, file, waves, devices, waveOf: new Map(), settled: new Map() };
    }
    case 'OtaWaveStarted': {
      const waveOf = new Map(state.waveOf);
      for (const id of event.data.deviceIds) waveOf.set(id, event.data.wave);
      return { ...state, status: 'executing', wave: event.data.wave, waveDone: false, nextWaveAt: null, waveOf };
    }
    case 'OtaTaskDeviceSettled': {
      const settled = new Map(state.settled);
      settled.set(event.data.deviceId, event.data.outcome);
      return { ...state, settled };
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
