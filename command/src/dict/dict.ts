import type { DictEvent, DictItemFields, DictTypeFields } from '@iot/contracts';

export type { DictEvent, DictItemFields, DictTypeFields };

export interface DictState {
  exists: boolean;
  deleted: boolean;
  fields: DictTypeFields | null;
  items: Record<string, DictItemFields>;
}

export const initialState: DictState = { exists: false, deleted: false, fields: null, items: {} };

export function evolve(state: DictState, event: DictEvent): DictState {
  switch (event.type) {
    case 'DictTypeCreated':
    case 'DictTypeUpdated': {
      const { typeId: _id, ...fields } = event.data;
      return { ...state, exists: true, fields };
    }
    case 'DictTypeDeleted':
      return { ...state, deleted: true };
    case 'DictItemAdded':
    case 'DictItemUpdated': {
      const { typeId: _t, itemId, ...item } = event.data;
      return { ...state, items: { ...state.items, [itemId]: item } };
    }
    case 'DictItemRemoved': {
      const { [event.data.itemId]: _removed, ...items } = state.items;
      return { ...state, items };
    }
    default:
      return state;
  }
}
