import { DomainError, type DeviceEvent, type DeviceLocation, type NodeType } from '@iot/contracts';
import { sameValue, unreachable, type Decider } from '../decider.ts';
import { evolveDevice, initialDeviceState, type DeviceState } from '@iot/contracts/device/state.ts';

/**
 * A device (a gateway is a device whose product is a gateway). SN uniqueness is a claim the handler takes
 * before the append; whether a group, gateway or product exists is checked by the handler on the read side.
 */
export type DeviceCommand =
  | {
      type: 'CreateDevice';
      deviceId: string;
      sn: string;
      name: string;
      productId: string;
      modelVersion: number;
      nodeType: NodeType;
      groupId: string | null;
      gatewayId: string | null;
      location: DeviceLocation;
      version: string | null;
      tags: string[];
      remark: string | null;
      secretHash: string;
    }
  | {
      /** A partial edit: a field left out stays as it is. */
      type: 'UpdateDevice';
      deviceId: string;
      name?: string;
      location?: DeviceLocation;
      version?: string | null;
      tags?: string[];
      remark?: string | null;
    }
  | { type: 'MoveDevice'; deviceId: string; groupId: string | null }
  | { type: 'BindGateway'; deviceId: string; gatewayId: string | null }
  | { type: 'RotateSecret'; deviceId: string; secretHash: string }
  | { type: 'EnableDevice'; deviceId: string }
  | { type: 'DisableDevice'; deviceId: string }
  | { type: 'ApplyTemplate'; deviceId: string; templateId: string | null; templateProductId: string | null }
  | { type: 'UpgradeModel'; deviceId: string; modelVersion: number }
  | { type: 'DeleteDevice'; deviceId: string; hasSubDevices: boolean }
  | { type: 'SetPresence'; deviceId: string; online: boolean; at: string; reason?: 'disconnect' | 'timeout' }
  | {
      type: 'SendCommand';
      deviceId: string;
      messageId: string;
      kind: 'service' | 'property';
      identifier: string;
      params: Record<string, unknown>;
      mode: 'sync' | 'async';
    }
  | { type: 'RecordReply'; deviceId: string; messageId: string; output: unknown }
  | { type: 'RecordCommandFailure'; deviceId: string; messageId: string; reason: 'timeout' | 'offline' }
  | { type: 'SetDesired'; deviceId: string; identifier: string; value: unknown };

const live = (state: DeviceState) => {
  if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND');
};

export function decide(command: DeviceCommand, state: DeviceState): DeviceEvent[] {
  const { deviceId } = command;
  switch (command.type) {
    case 'CreateDevice': {
      if (state.exists) return [];
      const { type: _t, ...data } = command;
      if (data.gatewayId === deviceId) throw new DomainError('NOT_A_GATEWAY');
      return [{ type: 'DeviceCreated', data: { ...data, tags: [...new Set(data.tags)] } }];
    }
    case 'UpdateDevice': {
      live(state);
      const current = {
        deviceId,
        name: state.name!,
        location: state.location,
        version: state.version,
        tags: state.tags,
        remark: state.remark,
      };
      // The event carries the whole record as it becomes: the fields named, and the others as they were.
      const named = Object.fromEntries(Object.entries(command).filter(([key, value]) => key !== 'type' && value !== undefined));
      const next = { ...current, ...named };
      next.tags = [...new Set(next.tags)];
      return sameValue(next, current) ? [] : [{ type: 'DeviceUpdated', data: next }];
    }
    case 'MoveDevice':
      live(state);
      return state.groupId === command.groupId ? [] : [{ type: 'DeviceMoved', data: { deviceId, groupId: command.groupId } }];
    case 'BindGateway':
      live(state);
      if (command.gatewayId === deviceId || (command.gatewayId && state.nodeType === 'gateway')) throw new DomainError('NOT_A_GATEWAY');
      return state.gatewayId === command.gatewayId
        ? []
        : [{ type: 'DeviceGatewayBound', data: { deviceId, gatewayId: command.gatewayId } }];
    case 'RotateSecret':
      live(state);
      return [{ type: 'DeviceSecretRotated', data: { deviceId, secretHash: command.secretHash } }];
    case 'EnableDevice':
      live(state);
      return state.enabled ? [] : [{ type: 'DeviceEnabled', data: { deviceId } }];
    case 'DisableDevice':
      live(state);
      return state.enabled ? [{ type: 'DeviceDisabled', data: { deviceId } }] : [];
    case 'ApplyTemplate':
      live(state);
      if (command.templateId && command.templateProductId !== state.productId) throw new DomainError('TEMPLATE_PRODUCT_MISMATCH');
      return state.templateId === command.templateId
        ? []
        : [{ type: 'DeviceTemplateApplied', data: { deviceId, templateId: command.templateId } }];
    case 'UpgradeModel':
      live(state);
      if (command.modelVersion < 1) throw new DomainError('PRODUCT_NOT_PUBLISHED');
      return state.modelVersion === command.modelVersion
        ? []
        : [{ type: 'DeviceModelUpgraded', data: { deviceId, modelVersion: command.modelVersion } }];
    case 'DeleteDevice':
      live(state);
      if (command.hasSubDevices) throw new DomainError('GATEWAY_HAS_DEVICES');
      return [{ type: 'DeviceDeleted', data: { deviceId, sn: state.sn! } }];
    case 'SetPresence':
      // A deleted device's last disconnect is not news; a state it is already in decides nothing.
      if (!state.exists || state.deleted || state.online === command.online) return [];
      return command.online
        ? [{ type: 'DeviceWentOnline', data: { deviceId, at: command.at } }]
        : [{ type: 'DeviceWentOffline', data: { deviceId, at: command.at, reason: command.reason ?? 'disconnect' } }];
    case 'SendCommand': {
      live(state);
      if (!state.enabled) throw new DomainError('DEVICE_DISABLED');
      const { type: _t, ...data } = command;
      return [{ type: 'DeviceCommandSent', data }];
    }
    case 'RecordReply':
      // A reply to a command this device was never sent, or one already settled, is not recorded.
      if (state.openCommands[command.messageId] !== true) return [];
      return [{ type: 'DeviceCommandReplied', data: { deviceId, messageId: command.messageId, output: command.output } }];
    case 'RecordCommandFailure':
      if (state.openCommands[command.messageId] !== true) return [];
      return [{ type: 'DeviceCommandFailed', data: { deviceId, messageId: command.messageId, reason: command.reason } }];
    case 'SetDesired':
      live(state);
      if (!state.enabled) throw new DomainError('DEVICE_DISABLED');
      return [{ type: 'DeviceDesiredSet', data: { deviceId, identifier: command.identifier, value: command.value } }];
    default:
      return unreachable(command);
  }
}

export const deviceDecider: Decider<DeviceCommand, DeviceEvent, DeviceState> = {
  initialState: initialDeviceState,
  evolve: evolveDevice,
  decide,
};
export const deviceStream = (tenantId: string, deviceId: string) => `device-${tenantId}.${deviceId}`;
