import { DomainError, type MqttConfigEvent, type MqttConfigFields } from '@iot/contracts';
import { sameValue, unreachable, type Decider } from '../decider.ts';

/** The MQTT settings a gateway connects upstream with (spec §3 MQTT config). */
export interface MqttConfigState {
  exists: boolean;
  deleted: boolean;
  fields: MqttConfigFields | null;
}
export type MqttConfigCommand =
  | { type: 'CreateMqttConfig'; configId: string; fields: MqttConfigFields }
  | { type: 'UpdateMqttConfig'; configId: string; fields: MqttConfigFields }
  | { type: 'DeleteMqttConfig'; configId: string };

export const initialState: MqttConfigState = { exists: false, deleted: false, fields: null };

export function evolve(state: MqttConfigState, event: MqttConfigEvent): MqttConfigState {
  switch (event.type) {
    case 'MqttConfigCreated':
      return { exists: true, deleted: false, fields: event.data.fields };
    case 'MqttConfigUpdated':
      return { ...state, fields: event.data.fields };
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
      return state.exists ? [] : [{ type: 'MqttConfigCreated', data: { configId, fields: command.fields } }];
    case 'UpdateMqttConfig': {
      live();
      // An edit that leaves the password empty keeps the one set before.
      const fields = { ...command.fields, password: command.fields.password ?? state.fields!.password };
      return sameValue(fields, state.fields) ? [] : [{ type: 'MqttConfigUpdated', data: { configId, fields } }];
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
