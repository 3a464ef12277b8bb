import {
  DomainError,
  fieldValueFits,
  type FieldDefinition,
  type FieldDefinitionEvent,
  type FieldSiteEvent,
  type SiteParameters,
} from '@iot/contracts';
import { sameValue, unreachable, type Decider } from '../decider.ts';

/** Custom fields a tenant may define at most. */
export const MAX_FIELDS = 50;

// A site's parameters: saved whole, checked against the tenant's field definitions at that moment.

export interface FieldSiteState {
  params: SiteParameters | null;
}
export type FieldSiteCommand = { type: 'ConfigureSite'; groupId: string; params: SiteParameters; definitions: FieldDefinition[] };

const emptyCustom = (v: unknown) => v === null || v === undefined || v === '';

/** Every custom value names a defined field and fits its type; every required field has a value. */
export function checkCustom(custom: SiteParameters['custom'], definitions: readonly FieldDefinition[]): void {
  const byKey = new Map(definitions.map((d) => [d.key, d]));
  for (const [key, value] of Object.entries(custom)) {
    const def = byKey.get(key);
    if (!def) throw new DomainError('FIELD_UNKNOWN', { field: `custom.${key}` });
    if (!emptyCustom(value) && !fieldValueFits(def.type, value)) throw new DomainError('FIELD_TYPE', { field: `custom.${key}` });
  }
  for (const def of definitions)
    if (def.required && emptyCustom(custom[def.key])) throw new DomainError('FIELD_REQUIRED', { field: `custom.${def.key}` });
}

/** Empty values are not kept: a cleared field and a never-filled one are the same. */
const pruned = (custom: SiteParameters['custom']) => Object.fromEntries(Object.entries(custom).filter(([, v]) => !emptyCustom(v)));

export const fieldSiteDecider: Decider<FieldSiteCommand, FieldSiteEvent, FieldSiteState> = {
  initialState: { params: null },
  evolve(_state, event) {
    const { groupId: _g, ...params } = event.data;
    return { params };
  },
  decide(command, state) {
    checkCustom(command.params.custom, command.definitions);
    const params = { ...command.params, custom: pruned(command.params.custom) };
    if (state.params && sameValue(state.params, params)) return [];
    return [{ type: 'FieldSiteConfigured', data: { groupId: command.groupId, ...params } }];
  },
};
export const fieldSiteStream = (tenantId: string, groupId: string) => `fieldSite-${tenantId}.${groupId}`;

// The tenant's custom field definitions: one aggregate per tenant, in the order first defined.

export interface FieldDefinitionsState {
  fields: FieldDefinition[];
}
export type FieldDefinitionCommand = { type: 'DefineField'; definition: FieldDefinition } | { type: 'RemoveField'; key: string };

export const fieldDefinitionsDecider: Decider<FieldDefinitionCommand, FieldDefinitionEvent, FieldDefinitionsState> = {
  initialState: { fields: [] },
  evolve(state, event) {
    switch (event.type) {
      case 'FieldDefined': {
        const at = state.fields.findIndex((f) => f.key === event.data.key);
        if (at < 0) return { fields: [...state.fields, event.data] };
        return { fields: state.fields.map((f, i) => (i === at ? event.data : f)) };
      }
      case 'FieldDefinitionRemoved':
        return { fields: state.fields.filter((f) => f.key !== event.data.key) };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'DefineField': {
        const current = state.fields.find((f) => f.key === command.definition.key);
        if (current && sameValue(current, command.definition)) return [];
        if (!current && state.fields.length >= MAX_FIELDS) throw new DomainError('FIELD_LIMIT');
        return [{ type: 'FieldDefined', data: command.definition }];
      }
      case 'RemoveField':
        if (!state.fields.some((f) => f.key === command.key)) throw new DomainError('NOT_FOUND');
        return [{ type: 'FieldDefinitionRemoved', data: { key: command.key } }];
      default:
        return unreachable(command);
    }
  },
};
export const fieldDefinitionsStream = (tenantId: string) => `fieldDefs-${tenantId}.fields`;
