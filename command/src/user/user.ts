import type { Sex, UserStatus } from '@iot/contracts';
import type { DomainEvent } from '../decider.ts';

export interface UserProfile {
  username: string;
  email: string | null;
  phone: string | null;
  sex: Sex;
  position: string | null;
  groupId: string | null;
  roleIds: string[];
  description: string | null;
  homePage: string | null;
}

export type UserEvent =
  | DomainEvent<'UserCreated', UserProfile & { userId: string; isSystemAdmin: boolean; isTenantAdmin: boolean }>
  | DomainEvent<'UserUpdated', UserProfile & { userId: string }>
  | DomainEvent<'UserStopped', { userId: string }>
  | DomainEvent<'UserEnabled', { userId: string }>
  | DomainEvent<'UserDeleted', { userId: string }>
  /** The password itself never enters an event: its hash lives in the credential store. */
  | DomainEvent<'UserPasswordChanged', { userId: string; byAdministrator: boolean }>;

export type UserEventType = UserEvent['type'];

export interface UserState {
  exists: boolean;
  deleted: boolean;
  username: string | null;
  status: UserStatus;
  isAdministrator: boolean;
  profile: UserProfile | null;
}

export const initialState: UserState = {
  exists: false,
  deleted: false,
  username: null,
  status: 'enabled',
  isAdministrator: false,
  profile: null,
};

export function evolve(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case 'UserCreated': {
      const { userId: _id, isSystemAdmin, isTenantAdmin, ...profile } = event.data;
      return {
        exists: true,
        deleted: false,
        username: profile.username,
        status: 'enabled',
        isAdministrator: isSystemAdmin || isTenantAdmin,
        profile,
      };
    }
    case 'UserUpdated': {
      const { userId: _id, ...profile } = event.data;
      return { ...state, username: profile.username, profile };
    }
    case 'UserStopped':
      return { ...state, status: 'stopped' };
    case 'UserEnabled':
      return { ...state, status: 'enabled' };
    case 'UserDeleted':
      return { ...state, deleted: true };
    case 'UserPasswordChanged':
      return state;
    default:
      return state;
  }
}
