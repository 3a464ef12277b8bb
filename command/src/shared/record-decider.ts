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

/** A record decider as its capability's event union (from contracts/) types it. */
export type RecordDecider<F, E extends DomainEvent> = Decider<RecordCommand<F>, E, RecordState<F>>;

/** The events of a record: created and updated carry its fields beside its id, deleted only its id. */
export type RecordEvent<F extends object, K extends string, N extends RecordEventNames> =
  | DomainEvent<N['created'], F & Record<K, string>>
  | DomainEvent<N['updated'], F & Record<K, string>>
  | DomainEvent<N['deleted'], Record<K, string>>;
export interface RecordEventNames {
  created: string;
  updated: string;
  deleted: string;
}

/** A record decider for fields `F`: `recordDecider<ContactFields>()({ created: 'ContactCreated', … }, 'contactId')`. */
export const recordDecider =
  <F extends object>() =>
  <const N extends RecordEventNames, K extends string>(
    names: N,
    idField: K,
  ): Decider<RecordCommand<F>, RecordEvent<F, K, N>, RecordState<F>> => {
    // TypeScript widens an object with a computed key of generic type to an index signature; it has that one key.
    const id = (value: string) => ({ [idField]: value }) as Record<K, string>;
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
            return [{ type: names.created, data: { ...id(command.id), ...command.fields } }];
          case 'Update':
            if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND');
            if (sameValue(command.fields, state.fields)) return [];
            return [{ type: names.updated, data: { ...id(command.id), ...command.fields } }];
          case 'Delete':
            if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND');
            return [{ type: names.deleted, data: id(command.id) }];
          default:
            return unreachable(command);
        }
      },
    };
  };
