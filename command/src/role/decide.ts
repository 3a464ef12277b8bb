import { DomainError, type BuiltinRole } from '@iot/contracts';
import { unreachable, type Decider } from '../decider.ts';
import { evolve, initialState, type RoleEvent, type RoleState } from './role.ts';

/**
 * `nameTaken` and `inUse` come from the read model, checked by the handler before the command; concurrent
 * requests for one name are kept apart by the claim the handler takes (command/src/shared/claims.ts).
 */
export type RoleCommand =
  | {
      type: 'CreateRole';
      roleId: string;
      name: string;
      remark: string | null;
      menuIds: string[];
      builtin: BuiltinRole | null;
      nameTaken: boolean;
    }
  | { type: 'UpdateRole'; roleId: string; name: string; remark: string | null; nameTaken: boolean }
  | { type: 'GrantRoleMenus'; roleId: string; menuIds: string[] }
  | { type: 'DeleteRole'; roleId: string; inUse: boolean };

const live = (state: RoleState) => {
  if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND');
};
const sameSet = (a: string[], b: string[]) => a.length === b.length && [...a].sort().join('\0') === [...b].sort().join('\0');

export function decide(command: RoleCommand, state: RoleState): RoleEvent[] {
  switch (command.type) {
    case 'CreateRole': {
      if (state.exists || command.nameTaken) throw new DomainError('ROLE_EXISTS');
      const { type: _type, nameTaken: _taken, ...data } = command;
      return [{ type: 'RoleCreated', data: { ...data, menuIds: [...new Set(data.menuIds)] } }];
    }
    case 'UpdateRole':
      live(state);
      if (command.nameTaken) throw new DomainError('ROLE_EXISTS');
      if (command.name === state.name && command.remark === state.remark) return [];
      return [{ type: 'RoleUpdated', data: { roleId: command.roleId, name: command.name, remark: command.remark } }];
    case 'GrantRoleMenus': {
      live(state);
      const menuIds = [...new Set(command.menuIds)];
      if (sameSet(menuIds, state.menuIds)) return [];
      return [{ type: 'RoleMenusGranted', data: { roleId: command.roleId, menuIds } }];
    }
    case 'DeleteRole':
      live(state);
      if (state.builtin === 'tenantAdmin') throw new DomainError('ADMIN_PROTECTED');
      // Every tenant's roles start from the built-in ones, and a release may add entries to them (role/builtin.ts).
      if (state.builtin) throw new DomainError('BUILTIN_ROLE');
      if (command.inUse) throw new DomainError('ROLE_IN_USE');
      return [{ type: 'RoleDeleted', data: { roleId: command.roleId } }];
    default:
      return unreachable(command);
  }
}

export const roleDecider: Decider<RoleCommand, RoleEvent, RoleState> = { initialState, evolve, decide };
export const roleStream = (tenantId: string, roleId: string) => `role-${tenantId}.${roleId}`;
