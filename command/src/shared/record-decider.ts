import { DomainError, type DomainEvent } from '@iot/contracts';
import { sameValue, unreachable, type Decider } from '../decider.ts';

/**
 * A record an operator keeps (a contact, a notification template or configuration): created, edited, deleted,
 * nothing more. One decider for the three, told the names of their events and of their id field.
 */
export type RecordCommand<F> =
  { type: 'Create'; id: string; fields: F } | { type: 'Update'; id: string; fields: F } | { type: 'Delete'; id: string };
export interface RecordState<F> {
  exists: boolean;
  deleted: boolean;
  fields: F | null;
}

export function recordDecider<F extends object, E extends DomainEvent>(
  names: { created: string; updated: string; deleted: string },
  idField: string,
): Decider<RecordCommand<F>, E, RecordState<F>> {
  const event = (type: string, data: object) => ({ type, data }) as unknown as E;
  return {
    initialState: { exists: false, deleted: false, fields: null },
    evolve(state, e) {
      const { [idField]: _id, ...fields } = e.data as Record<string, unknown>;
      if (e.type === names.created || e.type === names.updated) return { exists: true, deleted: false, fields: fields as F };
      if (e.type === names.deleted) return { ...state, deleted: true };
      return state;
    },
    decide(command, state) {
      switch (command.type) {
        case 'Create':
          if (state.exists) throw new DomainError('CONFLICT');
          return [event(names.created, { [idField]: command.id, ...command.fields })];
        case 'Update':
          if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND');
          if (sameValue(command.fields, state.fields)) return [];
          return [event(names.updated, { [idField]: command.id, ...command.fields })];
        case 'Delete':
          if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND');
          return [event(names.deleted, { [idField]: command.id })];
        default:
          return unreachable(command);
      }
    },
  };
}
