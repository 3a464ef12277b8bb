import { DomainError } from '@iot/contracts';
import { sameValue, unreachable, type Decider } from '../decider.ts';
import { evolve, initialState, type DictEvent, type DictItemFields, type DictState, type DictTypeFields } from './dict.ts';

/** `codeTaken` comes from the read model (codes are unique within a tenant); concurrent requests are kept apart by a claim. */
export type DictCommand =
  | ({ type: 'CreateDictType'; typeId: string; codeTaken: boolean } & DictTypeFields)
  | ({ type: 'UpdateDictType'; typeId: string; codeTaken: boolean } & DictTypeFields)
  | { type: 'DeleteDictType'; typeId: string }
  | ({ type: 'AddDictItem'; typeId: string; itemId: string } & DictItemFields)
  | ({ type: 'UpdateDictItem'; typeId: string; itemId: string } & DictItemFields)
  | { type: 'RemoveDictItem'; typeId: string; itemId: string };

const live = (state: DictState) => {
  if (!state.exists || state.deleted || !state.fields) throw new DomainError('NOT_FOUND');
  return state.fields;
};
const valueTaken = (state: DictState, value: string, except: string | null) =>
  Object.entries(state.items).some(([id, item]) => id !== except && item.value === value);

export function decide(command: DictCommand, state: DictState): DictEvent[] {
  switch (command.type) {
    case 'CreateDictType': {
      if (state.exists) throw new DomainError('CONFLICT');
      if (command.codeTaken) throw new DomainError('DICT_CODE_TAKEN');
      const { type: _type, codeTaken: _c, ...data } = command;
      return [{ type: 'DictTypeCreated', data }];
    }
    case 'UpdateDictType': {
      const current = live(state);
      if (command.codeTaken) throw new DomainError('DICT_CODE_TAKEN');
      const { type: _type, codeTaken: _c, typeId, ...fields } = command;
      if (sameValue(fields, current)) return [];
      return [{ type: 'DictTypeUpdated', data: { typeId, ...fields } }];
    }
    case 'DeleteDictType':
      live(state);
      return [{ type: 'DictTypeDeleted', data: { typeId: command.typeId } }];
    case 'AddDictItem': {
      live(state);
      if (state.items[command.itemId]) throw new DomainError('CONFLICT');
      if (valueTaken(state, command.value, null)) throw new DomainError('DICT_VALUE_TAKEN');
      const { type: _type, ...data } = command;
      return [{ type: 'DictItemAdded', data }];
    }
    case 'UpdateDictItem': {
      live(state);
      const current = state.items[command.itemId];
      if (!current) throw new DomainError('NOT_FOUND');
      if (valueTaken(state, command.value, command.itemId)) throw new DomainError('DICT_VALUE_TAKEN');
      const { type: _type, ...data } = command;
      const { typeId: _typeId, itemId: _itemId, ...item } = data;
      if (sameValue(item, current)) return [];
      return [{ type: 'DictItemUpdated', data }];
    }
    case 'RemoveDictItem':
      live(state);
      if (!state.items[command.itemId]) throw new DomainError('NOT_FOUND');
      return [{ type: 'DictItemRemoved', data: { typeId: command.typeId, itemId: command.itemId } }];
    default:
      return unreachable(command);
  }
}

export const dictDecider: Decider<DictCommand, DictEvent, DictState> = { initialState, evolve, decide };
export const dictStream = (tenantId: string, typeId: string) => `dict-${tenantId}.${typeId}`;
