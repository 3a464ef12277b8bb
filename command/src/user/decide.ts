import { DomainError } from '@iot/contracts';
import { unreachable, type Decider } from '../decider.ts';
import { evolve, initialState, type UserEvent, type UserProfile, type UserState } from './user.ts';

export type UserCommand =
  | ({ type: 'CreateUser'; userId: string; isSystemAdmin: boolean; isTenantAdmin: boolean } & UserProfile)
  /** The password itself never enters an event: the hash goes to the credential store. */
  | { type: 'RecordPasswordChange'; userId: string; byAdministrator: boolean };

export function decide(command: UserCommand, state: UserState): UserEvent[] {
  switch (command.type) {
    case 'CreateUser': {
      if (state.exists) throw new DomainError('USERNAME_TAKEN');
      const { type: _type, ...data } = command;
      return [{ type: 'UserCreated', data }];
    }
    case 'RecordPasswordChange':
      if (!state.exists) throw new DomainError('NOT_FOUND');
      return [{ type: 'UserPasswordChanged', data: { userId: command.userId, byAdministrator: command.byAdministrator } }];
    default:
      return unreachable(command);
  }
}

export const userDecider: Decider<UserCommand, UserEvent, UserState> = { initialState, evolve, decide };

export const userStream = (tenantId: string, userId: string) => `user-${tenantId}.${userId}`;
