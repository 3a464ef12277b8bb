import { DomainError } from '@iot/contracts';
import { sameValue, unreachable, type Decider } from '../decider.ts';
import { evolve, initialState, type CameraEvent, type CameraFields, type CameraState } from './camera.ts';

export type CameraCommand =
  | { type: 'RegisterCamera'; cameraId: string; fields: CameraFields }
  | { type: 'UpdateCamera'; cameraId: string; fields: CameraFields }
  | { type: 'DeleteCamera'; cameraId: string };

/** The camera's fields, when it is registered and not deleted. */
export const liveCamera = (state: CameraState): CameraFields => {
  if (!state.exists || state.deleted || !state.fields) throw new DomainError('NOT_FOUND');
  return state.fields;
};

export function decide(command: CameraCommand, state: CameraState): CameraEvent[] {
  switch (command.type) {
    case 'RegisterCamera':
      if (state.exists) throw new DomainError('CONFLICT');
      return [{ type: 'CameraRegistered', data: { cameraId: command.cameraId, ...command.fields } }];
    case 'UpdateCamera': {
      const current = liveCamera(state);
      if (sameValue(current, command.fields)) return [];
      return [{ type: 'CameraUpdated', data: { cameraId: command.cameraId, ...command.fields } }];
    }
    case 'DeleteCamera':
      liveCamera(state);
      return [{ type: 'CameraDeleted', data: { cameraId: command.cameraId } }];
    default:
      return unreachable(command);
  }
}

export const cameraDecider: Decider<CameraCommand, CameraEvent, CameraState> = { initialState, evolve, decide };
export const cameraStream = (tenantId: string, cameraId: string) => `camera-${tenantId}.${cameraId}`;
