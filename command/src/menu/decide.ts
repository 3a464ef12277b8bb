import { DomainError } from '@iot/contracts';
import { sameValue, unreachable, type Decider } from '../decider.ts';
import { evolve, initialState, type MenuEvent, type MenuFields, type MenuState } from './menu.ts';

export type MenuCommand =
  | { type: 'CreateMenu'; menuId: string; builtin: boolean; menu: MenuFields }
  | { type: 'UpdateMenu'; menuId: string; menu: MenuFields }
  | { type: 'ReorderMenu'; menuId: string; sort: number; parentId: string | null }
  /** `hasChildren` comes from the read model. */
  | { type: 'DeleteMenu'; menuId: string; hasChildren: boolean };

const live = (state: MenuState): MenuFields => {
  if (!state.exists || state.deleted || !state.fields) throw new DomainError('NOT_FOUND');
  return state.fields;
};
const selfParent = () =>
  new DomainError('VALIDATION', { fields: [{ field: 'body.parentId', message: 'a menu cannot be its own parent' }] });

export function decide(command: MenuCommand, state: MenuState): MenuEvent[] {
  switch (command.type) {
    case 'CreateMenu': {
      if (state.exists) throw new DomainError('CONFLICT');
      return [{ type: 'MenuCreated', data: { menuId: command.menuId, builtin: command.builtin, ...command.menu } }];
    }
    case 'UpdateMenu': {
      const current = live(state);
      if (command.menu.parentId === command.menuId) throw selfParent();
      if (sameValue(command.menu, current)) return [];
      return [{ type: 'MenuUpdated', data: { menuId: command.menuId, ...command.menu } }];
    }
    case 'ReorderMenu': {
      const current = live(state);
      if (command.parentId === command.menuId) throw selfParent();
      if (current.sort === command.sort && current.parentId === command.parentId) return [];
      return [{ type: 'MenuReordered', data: { menuId: command.menuId, sort: command.sort, parentId: command.parentId } }];
    }
    case 'DeleteMenu':
      live(state);
      if (command.hasChildren) throw new DomainError('MENU_HAS_CHILDREN');
      return [{ type: 'MenuDeleted', data: { menuId: command.menuId } }];
    default:
      return unreachable(command);
  }
}

export const menuDecider: Decider<MenuCommand, MenuEvent, MenuState> = { initialState, evolve, decide };
/** Menus are one catalogue for the whole platform: they live in the system tenant. */
export const menuStream = (menuId: string) => `menu-system.${menuId}`;
