import type { TemplateEvent, TemplateFields, VariableFields } from '@iot/contracts';

export type { TemplateEvent };

export interface TemplateState {
  exists: boolean;
  deleted: boolean;
  fields: TemplateFields | null;
  variables: VariableFields[];
}

export const initialState: TemplateState = { exists: false, deleted: false, fields: null, variables: [] };

export function evolve(state: TemplateState, event: TemplateEvent): TemplateState {
  switch (event.type) {
    case 'TemplateCreated':
      return { ...initialState, exists: true, fields: event.data.fields };
    case 'TemplateUpdated':
      return { ...state, fields: event.data.fields };
    case 'TemplateVariableDefined': {
      const v = event.data.variable;
      const at = state.variables.findIndex((x) => x.identifier === v.identifier);
      return { ...state, variables: at < 0 ? [...state.variables, v] : state.variables.map((x, i) => (i === at ? v : x)) };
    }
    case 'TemplateVariableRemoved':
      return { ...state, variables: state.variables.filter((x) => x.identifier !== event.data.identifier) };
    case 'TemplateDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
}
