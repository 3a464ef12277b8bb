import type { EnabledStatus } from '@iot/contracts';
import type { DomainEvent } from '../decider.ts';

export interface DictTypeFields {
  code: string;
  name: string;
  status: EnabledStatus;
  remark: string | null;
}
export interface DictItemFields {
  label: string;
  value: string;
  sort: number;
  status: EnabledStatus;
  remark: string | null;
}

/** A dictionary type and its items are one aggregate: item values are unique within their type. */
export type DictEvent =
  | DomainEvent<'DictTypeCreated', DictTypeFields & { typeId: string }>
  | DomainEvent<'DictTypeUpdated', DictTypeFields & { typeId: string }>
  | DomainEvent<'DictTypeDeleted', { typeId: string }>
  | DomainEvent<'DictItemAdded', DictItemFields & { typeId: string; itemId: string }>
  | DomainEvent<'DictItemUpdated', DictItemFields & { typeId: string; itemId: string }>
  | DomainEvent<'DictItemRemoved', { typeId: string; itemId: string }>;

export type DictEventType = DictEvent['type'];

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
