import { DomainError, type MqttConfigEvent, type MqttConfigFields } from '@iot/contracts';
import { sameValue, unreachable, type Decider } from '../decider.ts';

/** The MQTT settings a gateway connects upstream with (spec §3 MQTT config). */
export interface MqttConfigState {
  exists: boolean;
  deleted: boolean;
  fields: MqttConfigFields | null;
  hasPassword: boolean;
}
export type MqttConfigCommand =
  | { type: 'CreateMqttConfig'; configId: string; fields: MqttConfigFields; passwordGiven: boolean }
  | { type: 'UpdateMqttConfig'; configId: string; fields: MqttConfigFields; passwordGiven: boolean }
  | { type: 'DeleteMqttConfig'; configId: string };

export const initialState: MqttConfigState = { exists: false, deleted: false, fields: null, hasPassword: false };

export function evolve(state: MqttConfigState, event: MqttConfigEvent): MqttConfigState {
  switch (event.type) {
    case 'MqttConfigCreated':
      return { exists: true, deleted: false, fields: event.data.fields, hasPassword: event.data.hasPassword };
    case 'MqttConfigUpdated':
      return { ...state, fields: event.data.fields, hasPassword: event.data.hasPassword };
    case 'MqttConfigDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
}

export function decide(command: MqttConfigCommand, state: MqttConfigState): MqttConfigEvent[] {
  const { configId } = command;
  const live = () => {
    if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND');
  };
  switch (command.type) {
    case 'CreateMqttConfig':
      return state.exists
        ? []
        : [
            {
              type: 'MqttConfigCreated',
              data: { configId, fields: { ...command.fields, password: null }, hasPassword: command.passwordGiven },
            },
          ];
    case 'UpdateMqttConfig': {
      live();
      // An edit that leaves the password empty keeps the one set before; a new one is stored beside the log, not in it.
      const fields = { ...command.fields, password: null };
      const hasPassword = state.hasPassword || command.passwordGiven;
      if (sameValue(fields, state.fields) && hasPassword === state.hasPassword && !command.passwordGiven) return [];
      return [{ type: 'MqttConfigUpdated', data: { configId, fields, hasPassword } }];
    }
    case 'DeleteMqttConfig':
      live();
      return [{ type: 'MqttConfigDeleted', data: { configId } }];
    default:
      return unreachable(command);
  }
}

export const mqttConfigDecider: Decider<MqttConfigCommand, MqttConfigEvent, MqttConfigState> = { initialState, evolve, decide };
export const mqttConfigStream = (tenantId: string, configId: string) => `mqttconfig-${tenantId}.${configId}`;
