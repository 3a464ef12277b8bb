import {
  DomainError,
  type ForwardRuleEvent,
  type ForwardRuleFields,
  type ForwardServerEvent,
  type ForwardServerFields,
  type MqttAclEvent,
  type MqttAclFields,
  type MqttUserEvent,
  type MqttUserFields,
} from '@iot/contracts';
import { sameValue, unreachable, type Decider } from '../decider.ts';
import { recordDecider, type RecordDecider } from '../shared/record-decider.ts';

export const forwardServerDecider = recordDecider<ForwardServerFields>()(
  { created: 'ForwardServerCreated', updated: 'ForwardServerUpdated', deleted: 'ForwardServerDeleted' },
  'serverId',
) satisfies RecordDecider<ForwardServerFields, ForwardServerEvent>;
export const forwardRuleDecider = recordDecider<ForwardRuleFields>()(
  { created: 'ForwardRuleCreated', updated: 'ForwardRuleUpdated', deleted: 'ForwardRuleDeleted' },
  'ruleId',
) satisfies RecordDecider<ForwardRuleFields, ForwardRuleEvent>;
export const mqttAclDecider = recordDecider<MqttAclFields>()(
  { created: 'MqttAclCreated', updated: 'MqttAclUpdated', deleted: 'MqttAclDeleted' },
  'aclId',
) satisfies RecordDecider<MqttAclFields, MqttAclEvent>;

export type MqttUserCommand =
  | { type: 'Create'; id: string; fields: MqttUserFields }
  | { type: 'Update'; id: string; remark: string | null }
  /** The new hash is stored beside the log by the handler, after it checked the old password. */
  | { type: 'ChangePassword'; id: string }
  | { type: 'Delete'; id: string };
export interface MqttUserState {
  exists: boolean;
  deleted: boolean;
  fields: MqttUserFields | null;
}

/** An MQTT user: created once, its remark edited, its password changed, deleted; the username stays what it was created with. */
export const mqttUserDecider: Decider<MqttUserCommand, MqttUserEvent, MqttUserState> = {
  initialState: { exists: false, deleted: false, fields: null },
  evolve(state, event) {
    switch (event.type) {
      case 'MqttUserCreated':
      case 'MqttUserUpdated':
        return { exists: true, deleted: false, fields: { username: event.data.username, remark: event.data.remark } };
      case 'MqttUserDeleted':
        return { ...state, deleted: true };
      default:
        return state;
    }
  },
  decide(command, state) {
    if (command.type === 'Create') {
      if (state.exists) throw new DomainError('CONFLICT');
      return [{ type: 'MqttUserCreated', data: { mqttUserId: command.id, ...command.fields } }];
    }
    if (!state.exists || state.deleted || !state.fields) throw new DomainError('NOT_FOUND');
    switch (command.type) {
      case 'Update': {
        const fields = { ...state.fields, remark: command.remark };
        if (sameValue(fields, state.fields)) return [];
        return [{ type: 'MqttUserUpdated', data: { mqttUserId: command.id, ...fields } }];
      }
      case 'ChangePassword':
        return [{ type: 'MqttUserPasswordChanged', data: { mqttUserId: command.id } }];
      case 'Delete':
        return [{ type: 'MqttUserDeleted', data: { mqttUserId: command.id } }];
      default:
        return unreachable(command);
    }
  },
};

export const forwardServerStream = (tenantId: string, id: string) => `forwardServer-${tenantId}.${id}`;
export const forwardRuleStream = (tenantId: string, id: string) => `forwardRule-${tenantId}.${id}`;
export const mqttUserStream = (tenantId: string, id: string) => `mqttUser-${tenantId}.${id}`;
export const mqttAclStream = (tenantId: string, id: string) => `mqttAcl-${tenantId}.${id}`;
/** An MQTT user's password hash, among the platform's credentials (auth_credentials), under a subject of its own kind. */
export const mqttUserSubject = (id: string) => `mqtt:${id}`;
