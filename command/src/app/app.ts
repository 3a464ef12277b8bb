import type { AppSharing, AppType, EnabledStatus } from '@iot/contracts';
import type { DomainEvent } from '../decider.ts';

export interface AppFields {
  type: AppType;
  name: string;
  scope: string[];
  sharing: AppSharing;
  remark: string | null;
}

/** The key is a public identifier; the secret never enters an event (its hash is in the credential store). */
export type AppEvent =
  | DomainEvent<'AppCreated', AppFields & { appId: string; appKey: string; ownerId: string }>
  | DomainEvent<'AppUpdated', AppFields & { appId: string; status: EnabledStatus }>
  | DomainEvent<'AppSecretRotated', { appId: string }>
  | DomainEvent<'AppDeleted', { appId: string }>;

export type AppEventType = AppEvent['type'];

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
