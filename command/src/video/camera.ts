import type { CameraEvent, CameraFields } from '@iot/contracts';

export type { CameraEvent, CameraFields };

/** A camera as its decider sees it: registered or not, deleted or not, and its fields as last set. */
export interface CameraState {
  exists: boolean;
  deleted: boolean;
  fields: CameraFields | null;
}

export const initialState: CameraState = { exists: false, deleted: false, fields: null };

export function evolve(state: CameraState, event: CameraEvent): CameraState {
  switch (event.type) {
    case 'CameraRegistered':
    case 'CameraUpdated': {
      const { cameraId: _id, ...fields } = event.data;
      return { exists: true, deleted: false, fields };
    }
    case 'CameraDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
}
