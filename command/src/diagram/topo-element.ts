import { DomainError, type TopoElementEvent, type TopoElementFields } from '@iot/contracts';
import { sameValue, unreachable, type Decider } from '../decider.ts';

/** A topo element as its decider sees it: created or not, deleted or not, and its fields as last set. */
export interface TopoElementState {
  exists: boolean;
  deleted: boolean;
  fields: TopoElementFields | null;
}
export const initialState: TopoElementState = { exists: false, deleted: false, fields: null };

export function evolve(state: TopoElementState, event: TopoElementEvent): TopoElementState {
  switch (event.type) {
    case 'TopoElementCreated':
    case 'TopoElementUpdated': {
      const { elementId: _id, ...fields } = event.data;
      return { exists: true, deleted: false, fields };
    }
    case 'TopoElementDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
}

export type TopoElementCommand =
  | { type: 'CreateTopoElement'; elementId: string; fields: TopoElementFields }
  | { type: 'UpdateTopoElement'; elementId: string; fields: TopoElementFields }
  /** `usedBy`: the diagrams that place the element, from their read model; the element stays while any does. */
  | { type: 'DeleteTopoElement'; elementId: string; usedBy: readonly string[] };

/** The element's fields, when it is created and not deleted. */
export const liveTopoElement = (state: TopoElementState): TopoElementFields => {
  if (!state.exists || state.deleted || !state.fields) throw new DomainError('NOT_FOUND');
  return state.fields;
};

export function decide(command: TopoElementCommand, state: TopoElementState): TopoElementEvent[] {
  switch (command.type) {
    case 'CreateTopoElement':
      if (state.exists) throw new DomainError('CONFLICT');
      return [{ type: 'TopoElementCreated', data: { elementId: command.elementId, ...command.fields } }];
    case 'UpdateTopoElement': {
      const current = liveTopoElement(state);
      if (sameValue(current, command.fields)) return [];
      return [{ type: 'TopoElementUpdated', data: { elementId: command.elementId, ...command.fields } }];
    }
    case 'DeleteTopoElement':
      liveTopoElement(state);
      if (command.usedBy.length > 0) throw new DomainError('TOPO_ELEMENT_IN_USE', { diagrams: command.usedBy.join(', ') });
      return [{ type: 'TopoElementDeleted', data: { elementId: command.elementId } }];
    default:
      return unreachable(command);
  }
}

export const topoElementDecider: Decider<TopoElementCommand, TopoElementEvent, TopoElementState> = { initialState, evolve, decide };
export const topoElementStream = (tenantId: string, elementId: string) => `topoElement-${tenantId}.${elementId}`;
