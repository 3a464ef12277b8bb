import { DomainError, type ProductEvent, type ProductFields, type ThingFunction } from '@iot/contracts';
import { sameValue, unreachable, type Decider } from '../decider.ts';
import { evolveProduct, initialProductState, latestVersion, type ProductState } from '@iot/contracts/device/state.ts';

/**
 * A product and its thing model. The draft is edited freely; publishing freezes it as the next version,
 * and devices report against the version they were bound to, so a published version never changes.
 */
export type ProductCommand =
  | { type: 'CreateProduct'; productId: string; key: string; fields: ProductFields; functions: ThingFunction[]; copiedFrom: string | null }
  | { type: 'UpdateProduct'; productId: string; fields: ProductFields }
  | { type: 'DefineFunction'; productId: string; function: ThingFunction; replaces?: string }
  | { type: 'RemoveFunction'; productId: string; identifier: string }
  | { type: 'ImportThingModel'; productId: string; functions: ThingFunction[] }
  | { type: 'PublishProduct'; productId: string }
  | { type: 'UnpublishProduct'; productId: string }
  | { type: 'DeleteProduct'; productId: string; hasDevices: boolean };

const live = (state: ProductState) => {
  if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND');
};

export function decide(command: ProductCommand, state: ProductState): ProductEvent[] {
  const { productId } = command;
  switch (command.type) {
    case 'CreateProduct':
      if (state.exists) return [];
      return [
        {
          type: 'ProductCreated',
          data: { productId, key: command.key, fields: command.fields, functions: command.functions, copiedFrom: command.copiedFrom },
        },
      ];
    case 'UpdateProduct':
      live(state);
      if (sameValue(command.fields, state.fields)) return [];
      return [{ type: 'ProductUpdated', data: { productId, fields: command.fields } }];
    case 'DefineFunction': {
      live(state);
      const fn = command.function;
      const renamed = command.replaces !== undefined && command.replaces !== fn.identifier;
      if (renamed && !state.functions.some((f) => f.identifier === command.replaces)) throw new DomainError('NOT_FOUND');
      // A new identifier, or a rename onto an identifier in use, must not take another function's place.
      const isNew = command.replaces === undefined;
      if ((isNew || renamed) && state.functions.some((f) => f.identifier === fn.identifier)) throw new DomainError('IDENTIFIER_TAKEN');
      const current = state.functions.find((f) => f.identifier === fn.identifier);
      if (!renamed && current && sameValue(current, fn)) return [];
      const events: ProductEvent[] = [];
      if (renamed) events.push({ type: 'ProductFunctionRemoved', data: { productId, identifier: command.replaces! } });
      events.push({ type: 'ProductFunctionDefined', data: { productId, function: fn } });
      return events;
    }
    case 'RemoveFunction':
      live(state);
      if (!state.functions.some((f) => f.identifier === command.identifier)) throw new DomainError('NOT_FOUND');
      return [{ type: 'ProductFunctionRemoved', data: { productId, identifier: command.identifier } }];
    case 'ImportThingModel':
      live(state);
      if (sameValue(command.functions, state.functions)) return [];
      return [{ type: 'ProductThingModelImported', data: { productId, functions: command.functions } }];
    case 'PublishProduct': {
      live(state);
      const newest = state.versions.at(-1);
      // Publishing an unchanged draft publishes the newest version again rather than minting an identical one.
      if (newest && sameValue(newest, state.functions))
        return state.published ? [] : [{ type: 'ProductPublished', data: { productId, version: latestVersion(state), functions: newest } }];
      return [{ type: 'ProductPublished', data: { productId, version: latestVersion(state) + 1, functions: state.functions } }];
    }
    case 'UnpublishProduct':
      live(state);
      return state.published ? [{ type: 'ProductUnpublished', data: { productId } }] : [];
    case 'DeleteProduct':
      live(state);
      if (command.hasDevices) throw new DomainError('PRODUCT_IN_USE');
      return [{ type: 'ProductDeleted', data: { productId } }];
    default:
      return unreachable(command);
  }
}

export const productDecider: Decider<ProductCommand, ProductEvent, ProductState> = {
  initialState: initialProductState,
  evolve: evolveProduct,
  decide,
};
export const productStream = (tenantId: string, productId: string) => `product-${tenantId}.${productId}`;
