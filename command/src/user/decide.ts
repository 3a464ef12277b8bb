import { DomainError, type UserStatus } from '@iot/contracts';
import { unreachable, type Decider } from '../decider.ts';
import { evolve, initialState, type UserEvent, type UserProfile, type UserState } from './user.ts';

export type UserCommand =
  | ({ type: 'CreateUser'; userId: string; isSystemAdmin: boolean; isTenantAdmin: boolean; status?: UserStatus } & UserProfile)
  | ({ type: 'UpdateUser'; userId: string } & UserProfile)
  | { type: 'SetUserStatus'; userId: string; status: UserStatus }
  | { type: 'DeleteUser'; userId: string }
  /** The password itself never enters an event: the hash goes to the credential store. */
  | { type: 'RecordPasswordChange'; userId: string; byAdministrator: boolean };

const live = (state: UserState) => {
  if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND');
};

function create(command: Extract<UserCommand, { type: 'CreateUser' }>, state: UserState): UserEvent[] {
  if (state.exists) throw new DomainError('USERNAME_TAKEN');
  const { type: _type, status, ...data } = command;
  const created: UserEvent = { type: 'UserCreated', data };
  return status === 'stopped' ? [created, { type: 'UserStopped', data: { userId: command.userId } }] : [created];
}

function update(command: Extract<UserCommand, { type: 'UpdateUser' }>, state: UserState): UserEvent[] {
  live(state);
  const { type: _type, userId, ...profile } = command;
  if (JSON.stringify(profile) === JSON.stringify(state.profile)) return [];
  return [{ type: 'UserUpdated', data: { userId, ...profile } }];
}

function setStatus(command: Extract<UserCommand, { type: 'SetUserStatus' }>, state: UserState): UserEvent[] {
  live(state);
  if (command.status === state.status) return [];
  if (command.status === 'stopped' && state.isAdministrator) throw new DomainError('ADMIN_PROTECTED');
  return [{ type: command.status === 'stopped' ? 'UserStopped' : 'UserEnabled', data: { userId: command.userId } }];
}

function remove(command: Extract<UserCommand, { type: 'DeleteUser' }>, state: UserState): UserEvent[] {
  live(state);
  if (state.isAdministrator) throw new DomainError('ADMIN_PROTECTED');
  return [{ type: 'UserDeleted', data: { userId: command.userId } }];
}

export function decide(command: UserCommand, state: UserState): UserEvent[] {
  switch (command.type) {
    case 'CreateUser':
      return create(command, state);
    case 'UpdateUser':
      return update(command, state);
    case 'SetUserStatus':
      return setStatus(command, state);
    case 'DeleteUser':
      return remove(command, state);
    case 'RecordPasswordChange':
      live(state);
      return [{ type: 'UserPasswordChanged', data: { userId: command.userId, byAdministrator: command.byAdministrator } }];
    default:
      return unreachable(command);
  }
}

export const userDecider: Decider<UserCommand, UserEvent, UserState> = { initialState, evolve, decide };

export const userStream = (tenantId: string, userId: string) => `user-${tenantId}.${userId}`;
