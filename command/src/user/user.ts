import type { UserEvent, UserProfile, UserStatus } from '@iot/contracts';

export type { UserEvent, UserProfile };

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
