import { DomainError, type DiagramEvent, type DiagramFields } from '@iot/contracts';
import { sameValue, unreachable, type Decider } from '../decider.ts';

/** A diagram as its decider sees it: created or not, deleted or not, and its fields as last saved. */
export interface DiagramState {
  exists: boolean;
  deleted: boolean;
  fields: DiagramFields | null;
}
export const initialState: DiagramState = { exists: false, deleted: false, fields: null };

export function evolve(state: DiagramState, event: DiagramEvent): DiagramState {
  switch (event.type) {
    case 'DiagramCreated':
    case 'DiagramSaved': {
      const { diagramId: _id, ...fields } = event.data;
      return { exists: true, deleted: false, fields };
    }
    case 'DiagramDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
}

export type DiagramCommand =
  | { type: 'CreateDiagram'; diagramId: string; fields: DiagramFields }
  | { type: 'SaveDiagram'; diagramId: string; fields: DiagramFields }
  | { type: 'DeleteDiagram'; diagramId: string };

const liveDiagram = (state: DiagramState): DiagramFields => {
  if (!state.exists || state.deleted || !state.fields) throw new DomainError('NOT_FOUND');
  return state.fields;
};

export function decide(command: DiagramCommand, state: DiagramState): DiagramEvent[] {
  switch (command.type) {
    case 'CreateDiagram':
      if (state.exists) throw new DomainError('CONFLICT');
      return [{ type: 'DiagramCreated', data: { diagramId: command.diagramId, ...command.fields } }];
    case 'SaveDiagram': {
      const current = liveDiagram(state);
      if (sameValue(current, command.fields)) return [];
      return [{ type: 'DiagramSaved', data: { diagramId: command.diagramId, ...command.fields } }];
    }
    case 'DeleteDiagram':
      liveDiagram(state);
      return [{ type: 'DiagramDeleted', data: { diagramId: command.diagramId } }];
    default:
      return unreachable(command);
  }
}

export const diagramDecider: Decider<DiagramCommand, DiagramEvent, DiagramState> = { initialState, evolve, decide };
export const diagramStream = (tenantId: string, diagramId: string) => `diagram-${tenantId}.${diagramId}`;
