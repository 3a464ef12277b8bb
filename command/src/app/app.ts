import type { AppEvent, AppFields, EnabledStatus } from '@iot/contracts';

export type { AppEvent, AppFields };

export interface AppState {
  exists: boolean;
  deleted: boolean;
  ownerId: string | null;
  fields: (AppFields & { status: EnabledStatus }) | null;
}

export const initialState: AppState = { exists: false, deleted: false, ownerId: null, fields: null };

export function evolve(state: AppState, event: AppEvent): AppState {
  switch (event.type) {
    case 'AppCreated': {
      const { appId: _id, appKey: _key, ownerId, ...fields } = event.data;
      return { exists: true, deleted: false, ownerId, fields: { ...fields, status: 'enabled' } };
    }
    case 'AppUpdated': {
      const { appId: _id, ...fields } = event.data;
      return { ...state, fields };
    }
    case 'AppSecretRotated':
      return state;
    case 'AppDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
}
