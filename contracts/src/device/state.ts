import { eventsOfUnion } from '../ports/event-store.ts';
import type { DeviceEvent, ProductEvent } from './events.ts';
import type { DeviceLocation, NodeType, ProductFields } from './model.ts';
import type { ThingFunction } from './thing-model.ts';

/**
 * A device and a product as their streams tell them: the one fold of each, what the write side decides on
 * (command/src/device/decide.ts, command/src/product/decide.ts) and what an auditor replays to an instant
 * (query/src/device/history.ts).
 */
export interface DeviceState {
  exists: boolean;
  deleted: boolean;
  sn: string | null;
  name: string | null;
  productId: string | null;
  modelVersion: number;
  nodeType: NodeType | null;
  groupId: string | null;
  gatewayId: string | null;
  location: DeviceLocation;
  version: string | null;
  tags: string[];
  remark: string | null;
  enabled: boolean;
  templateId: string | null;
  secretHash: string | null;
  /** A secret rotated after creation (every device is created with one). */
  secretRotated: boolean;
  online: boolean;
  /** Commands sent and not yet replied to or failed, by message id. */
  openCommands: Record<string, true>;
}

export const initialDeviceState: DeviceState = {
  exists: false,
  deleted: false,
  sn: null,
  name: null,
  productId: null,
  modelVersion: 0,
  nodeType: null,
  groupId: null,
  gatewayId: null,
  location: { lng: null, lat: null, address: null },
  version: null,
  tags: [],
  remark: null,
  enabled: true,
  templateId: null,
  secretHash: null,
  secretRotated: false,
  online: false,
  openCommands: {},
};

export function evolveDevice(state: DeviceState, event: DeviceEvent): DeviceState {
  switch (event.type) {
    case 'DeviceCreated': {
      const { deviceId: _id, ...d } = event.data;
      return { ...initialDeviceState, ...d, exists: true };
    }
    case 'DeviceUpdated': {
      const { deviceId: _id, ...d } = event.data;
      return { ...state, ...d };
    }
    case 'DeviceMoved':
      return { ...state, groupId: event.data.groupId };
    case 'DeviceGatewayBound':
      return { ...state, gatewayId: event.data.gatewayId };
    case 'DeviceSecretRotated':
      return { ...state, secretHash: event.data.secretHash, secretRotated: true };
    case 'DeviceEnabled':
      return { ...state, enabled: true };
    case 'DeviceDisabled':
      return { ...state, enabled: false };
    case 'DeviceTemplateApplied':
      return { ...state, templateId: event.data.templateId };
    case 'DeviceModelUpgraded':
      return { ...state, modelVersion: event.data.modelVersion };
    case 'DeviceDeleted':
      return { ...state, deleted: true };
    case 'DeviceWentOnline':
      return { ...state, online: true };
    case 'DeviceWentOffline':
      return { ...state, online: false };
    case 'DeviceCommandSent':
      return { ...state, openCommands: { ...state.openCommands, [event.data.messageId]: true } };
    case 'DeviceCommandReplied':
    case 'DeviceCommandFailed': {
      const { [event.data.messageId]: _settled, ...open } = state.openCommands;
      return { ...state, openCommands: open };
    }
    default:
      // Desired values are the device's history, not its fields.
      return state;
  }
}

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

export const initialProductState: ProductState = {
  exists: false,
  deleted: false,
  key: null,
  fields: null,
  functions: [],
  published: false,
  versions: [],
};

export function evolveProduct(state: ProductState, event: ProductEvent): ProductState {
  switch (event.type) {
    case 'ProductCreated':
      return { ...initialProductState, exists: true, key: event.data.key, fields: event.data.fields, functions: event.data.functions };
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

/** Whether a stored event is a device's: what a device stream's events are read as. */
export const isDeviceEvent = eventsOfUnion<DeviceEvent>({
  DeviceCreated: true,
  DeviceUpdated: true,
  DeviceMoved: true,
  DeviceGatewayBound: true,
  DeviceSecretRotated: true,
  DeviceEnabled: true,
  DeviceDisabled: true,
  DeviceTemplateApplied: true,
  DeviceModelUpgraded: true,
  DeviceDeleted: true,
  DeviceWentOnline: true,
  DeviceWentOffline: true,
  DeviceCommandSent: true,
  DeviceCommandReplied: true,
  DeviceCommandFailed: true,
  DeviceDesiredSet: true,
});

/** Whether a stored event is a product's: what a product stream's events are read as. */
export const isProductEvent = eventsOfUnion<ProductEvent>({
  ProductCreated: true,
  ProductUpdated: true,
  ProductFunctionDefined: true,
  ProductFunctionRemoved: true,
  ProductThingModelImported: true,
  ProductPublished: true,
  ProductUnpublished: true,
  ProductDeleted: true,
});
