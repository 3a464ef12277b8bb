import type { DomainEvent } from '../decider.ts';

export interface UserProfile {
  username: string;
  email: string | null;
  phone: string | null;
  sex: 'male' | 'female' | 'unknown';
  position: string | null;
  groupId: string | null;
  roleIds: string[];
  description: string | null;
  homePage: string | null;
}

export type UserEvent =
  | DomainEvent<'UserCreated', UserProfile & { userId: string; isSystemAdmin: boolean; isTenantAdmin: boolean }>
  | DomainEvent<'UserPasswordChanged', { userId: string; byAdministrator: boolean }>;

export interface UserState {
  exists: boolean;
  username: string | null;
  status: 'enabled' | 'stopped';
}

export const initialState: UserState = { exists: false, username: null, status: 'enabled' };

export function evolve(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case 'UserCreated':
      return { exists: true, username: event.data.username, status: 'enabled' };
    case 'UserPasswordChanged':
      return state;
    default:
      return state;
  }
}
