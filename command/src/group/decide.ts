import { DomainError } from '@iot/contracts';
import { sameValue, unreachable, type Decider } from '../decider.ts';
import { evolve, initialState, type GroupEvent, type GroupFields, type GroupState } from './group.ts';

/**
 * `byTenantAdmin`: the caller is the tenant's root user. Only they may create or delete a root group
 * (spec §5); `hasChildren` / `hasUsers` come from the read model, checked by the route.
 */
export type GroupCommand =
  | { type: 'CreateGroup'; groupId: string; byTenantAdmin: boolean; group: GroupFields }
  | { type: 'UpdateGroup'; groupId: string; byTenantAdmin: boolean; group: GroupFields }
  | { type: 'DeleteGroup'; groupId: string; byTenantAdmin: boolean; hasChildren: boolean; hasUsers: boolean };

const live = (state: GroupState): GroupFields => {
  if (!state.exists || state.deleted || !state.fields) throw new DomainError('NOT_FOUND');
  return state.fields;
};

export function decide(command: GroupCommand, state: GroupState): GroupEvent[] {
  switch (command.type) {
    case 'CreateGroup': {
      if (state.exists) throw new DomainError('CONFLICT');
      if (command.group.parentId === null && !command.byTenantAdmin) throw new DomainError('ROOT_GROUP_FORBIDDEN');
      return [{ type: 'GroupCreated', data: { groupId: command.groupId, ...command.group } }];
    }
    case 'UpdateGroup': {
      const current = live(state);
      // Moving a group to or from the root is the same as creating or deleting a root.
      const next = command.group;
      if ((next.parentId === null) !== (current.parentId === null) && !command.byTenantAdmin) throw new DomainError('ROOT_GROUP_FORBIDDEN');
      if (next.parentId === command.groupId)
        throw new DomainError('VALIDATION', { fields: [{ field: 'body.parentId', message: 'a group cannot be its own parent' }] });
      if (sameValue(next, current)) return [];
      return [{ type: 'GroupUpdated', data: { groupId: command.groupId, ...next } }];
    }
    case 'DeleteGroup': {
      const current = live(state);
      if (current.parentId === null && !command.byTenantAdmin) throw new DomainError('ROOT_GROUP_FORBIDDEN');
      if (command.hasChildren) throw new DomainError('GROUP_HAS_CHILDREN');
      if (command.hasUsers) throw new DomainError('GROUP_IN_USE');
      return [{ type: 'GroupDeleted', data: { groupId: command.groupId } }];
    }
    default:
      return unreachable(command);
  }
}

export const groupDecider: Decider<GroupCommand, GroupEvent, GroupState> = { initialState, evolve, decide };
export const groupStream = (tenantId: string, groupId: string) => `group-${tenantId}.${groupId}`;
