import type { MenuEvent, MenuFields } from '@iot/contracts';

export type { MenuEvent, MenuFields };

export interface MenuState {
  exists: boolean;
  deleted: boolean;
  fields: MenuFields | null;
}

export const initialState: MenuState = { exists: false, deleted: false, fields: null };

export function evolve(state: MenuState, event: MenuEvent): MenuState {
  switch (event.type) {
    case 'MenuCreated': {
      const { menuId: _id, builtin: _builtin, ...fields } = event.data;
      return { exists: true, deleted: false, fields };
    }
    case 'MenuUpdated': {
      const { menuId: _id, ...fields } = event.data;
      return { ...state, fields };
    }
    case 'MenuReordered':
      return state.fields ? { ...state, fields: { ...state.fields, sort: event.data.sort, parentId: event.data.parentId } } : state;
    case 'MenuDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
}
