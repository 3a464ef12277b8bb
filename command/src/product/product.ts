import type { ProductEvent, ProductFields, ThingFunction } from '@iot/contracts';

export type { ProductEvent };

export interface ProductState {
  exists: boolean;
  deleted: boolean;
  key: string | null;
  fields: ProductFields | null;
  /** The draft thing model: what the next publication freezes. */
  functions: ThingFunction[];
  published: boolean;
  /** Every published version's functions, by version (1-based). */
  versions: ThingFunction[][];
}

export const initialState: ProductState = {
  exists: false,
  deleted: false,
  key: null,
  fields: null,
  functions: [],
  published: false,
  versions: [],
};

export function evolve(state: ProductState, event: ProductEvent): ProductState {
  switch (event.type) {
    case 'ProductCreated':
      return { ...initialState, exists: true, key: event.data.key, fields: event.data.fields, functions: event.data.functions };
    case 'ProductUpdated':
      return { ...state, fields: event.data.fields };
    case 'ProductFunctionDefined': {
      const fn = event.data.function;
      const at = state.functions.findIndex((f) => f.identifier === fn.identifier);
      const functions = at < 0 ? [...state.functions, fn] : state.functions.map((f, i) => (i === at ? fn : f));
      return { ...state, functions };
    }
    case 'ProductFunctionRemoved':
      return { ...state, functions: state.functions.filter((f) => f.identifier !== event.data.identifier) };
    case 'ProductThingModelImported':
      return { ...state, functions: event.data.functions };
    case 'ProductPublished':
      // A version published again (unchanged draft) is not a new version.
      return {
        ...state,
        published: true,
        versions: event.data.version > state.versions.length ? [...state.versions, event.data.functions] : state.versions,
      };
    case 'ProductUnpublished':
      return { ...state, published: false };
    case 'ProductDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
}

/** The newest published version (0 when never published). */
export const latestVersion = (state: ProductState): number => state.versions.length;
