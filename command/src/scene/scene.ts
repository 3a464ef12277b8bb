import type { EnabledStatus, SceneEvent, SceneFields, SceneRunEvent } from '@iot/contracts';

export type { SceneEvent, SceneFields, SceneRunEvent };

export interface SceneState {
  exists: boolean;
  deleted: boolean;
  status: EnabledStatus;
  fields: SceneFields | null;
}

export const initialState: SceneState = { exists: false, deleted: false, status: 'stopped', fields: null };

export function evolve(state: SceneState, event: SceneEvent): SceneState {
  switch (event.type) {
    case 'SceneCreated': {
      const { sceneId: _id, enabled, ...fields } = event.data;
      return { exists: true, deleted: false, status: enabled ? 'enabled' : 'stopped', fields };
    }
    case 'SceneUpdated': {
      const { sceneId: _id, ...fields } = event.data;
      return { ...state, fields };
    }
    case 'SceneEnabled':
      return { ...state, status: 'enabled' };
    case 'SceneStopped':
      return { ...state, status: 'stopped' };
    case 'SceneDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
}

/** A run: started once (the claim), finished once. */
export interface SceneRunState {
  started: boolean;
  finished: boolean;
}
export const initialRunState: SceneRunState = { started: false, finished: false };
export function evolveRun(state: SceneRunState, event: SceneRunEvent): SceneRunState {
  switch (event.type) {
    case 'SceneRunStarted':
      return { ...state, started: true };
    case 'SceneRunFinished':
      return { ...state, finished: true };
    default:
      return state;
  }
}
