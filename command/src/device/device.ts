import type { DeviceEvent, DeviceLocation, NodeType } from '@iot/contracts';

export type { DeviceEvent };

/** A device as its stream tells it: what commands decide on (the read side folds its own view: query/src/device/history.ts). */
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
  online: boolean;
  /** Commands sent and not yet replied to or failed, by message id. */
  openCommands: Record<string, true>;
}

export const initialState: DeviceState = {
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
  online: false,
  openCommands: {},
};

export function evolve(state: DeviceState, event: DeviceEvent): DeviceState {
  switch (event.type) {
    case 'DeviceCreated': {
      const { deviceId: _id, ...d } = event.data;
      return { ...initialState, ...d, exists: true };
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
      return { ...state, secretHash: event.data.secretHash };
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
      return state;
  }
}
