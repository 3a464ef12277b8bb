import type { BuiltinRole, RoleEvent } from '@iot/contracts';

export type { RoleEvent };

export interface RoleState {
  exists: boolean;
  deleted: boolean;
  name: string | null;
  remark: string | null;
  menuIds: string[];
  builtin: BuiltinRole | null;
}

export const initialState: RoleState = { exists: false, deleted: false, name: null, remark: null, menuIds: [], builtin: null };

export function evolve(state: RoleState, event: RoleEvent): RoleState {
  switch (event.type) {
    case 'RoleCreated':
      return {
        exists: true,
        deleted: false,
        name: event.data.name,
        remark: event.data.remark,
        menuIds: event.data.menuIds,
        builtin: event.data.builtin,
      };
    case 'RoleUpdated':
      return { ...state, name: event.data.name, remark: event.data.remark };
    case 'RoleMenusGranted':
      return { ...state, menuIds: event.data.menuIds };
    case 'RoleDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
}
