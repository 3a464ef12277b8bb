import { DomainError, type TemplateFields, type VariableFields } from '@iot/contracts';
import { sameValue, unreachable, type Decider } from '../decider.ts';
import { evolve, initialState, type TemplateEvent, type TemplateState } from './template.ts';

/**
 * A template: acquisition settings and variables for the devices of one product. A variable's identifier
 * names a property of that product's thing model (one namespace): `properties` are the draft's, given by the handler.
 */
export type TemplateCommand =
  | { type: 'CreateTemplate'; templateId: string; fields: TemplateFields }
  | { type: 'UpdateTemplate'; templateId: string; fields: TemplateFields }
  | { type: 'DefineVariable'; templateId: string; variable: VariableFields; properties: string[] }
  | { type: 'RemoveVariable'; templateId: string; identifier: string }
  | { type: 'DeleteTemplate'; templateId: string };

const live = (state: TemplateState) => {
  if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND');
};

export function decide(command: TemplateCommand, state: TemplateState): TemplateEvent[] {
  const { templateId } = command;
  switch (command.type) {
    case 'CreateTemplate':
      return state.exists ? [] : [{ type: 'TemplateCreated', data: { templateId, fields: command.fields } }];
    case 'UpdateTemplate':
      live(state);
      // The variables name the product's properties: a template stays with its product.
      if (command.fields.productId !== state.fields!.productId) throw new DomainError('TEMPLATE_PRODUCT_MISMATCH');
      return sameValue(command.fields, state.fields) ? [] : [{ type: 'TemplateUpdated', data: { templateId, fields: command.fields } }];
    case 'DefineVariable': {
      live(state);
      if (!command.properties.includes(command.variable.identifier))
        throw new DomainError('NOT_A_PROPERTY', { identifier: command.variable.identifier });
      const current = state.variables.find((v) => v.identifier === command.variable.identifier);
      return current && sameValue(current, command.variable)
        ? []
        : [{ type: 'TemplateVariableDefined', data: { templateId, variable: command.variable } }];
    }
    case 'RemoveVariable':
      live(state);
      if (!state.variables.some((v) => v.identifier === command.identifier)) throw new DomainError('NOT_FOUND');
      return [{ type: 'TemplateVariableRemoved', data: { templateId, identifier: command.identifier } }];
    case 'DeleteTemplate':
      live(state);
      return [{ type: 'TemplateDeleted', data: { templateId } }];
    default:
      return unreachable(command);
  }
}

export const templateDecider: Decider<TemplateCommand, TemplateEvent, TemplateState> = { initialState, evolve, decide };
export const templateStream = (tenantId: string, templateId: string) => `template-${tenantId}.${templateId}`;
