import type { DomainEvent } from '../event.ts';
import type { ForwardRuleFields, ForwardServerFields, MqttAclFields, MqttUserFields } from './model.ts';

/**
 * A forwarding server (spec §3 MQTT server, HTTP server): stream `forwardServer-<tenant>.<id>`. A password never
 * enters an event: it is stored beside the log, and the event says only whether one is set.
 */
export type ForwardServerEvent =
  | DomainEvent<'ForwardServerCreated', ForwardServerFields & { serverId: string }>
  | DomainEvent<'ForwardServerUpdated', ForwardServerFields & { serverId: string }>
  | DomainEvent<'ForwardServerDeleted', { serverId: string }>;

/** A forwarding rule: which messages of which products and devices go to which server, how: stream `forwardRule-<tenant>.<id>`. */
export type ForwardRuleEvent =
  | DomainEvent<'ForwardRuleCreated', ForwardRuleFields & { ruleId: string }>
  | DomainEvent<'ForwardRuleUpdated', ForwardRuleFields & { ruleId: string }>
  | DomainEvent<'ForwardRuleDeleted', { ruleId: string }>;

/** An MQTT user of the platform's broker for third-party clients: stream `mqttUser-<tenant>.<id>` (its password hash beside the log). */
export type MqttUserEvent =
  | DomainEvent<'MqttUserCreated', MqttUserFields & { mqttUserId: string }>
  | DomainEvent<'MqttUserUpdated', MqttUserFields & { mqttUserId: string }>
  | DomainEvent<'MqttUserPasswordChanged', { mqttUserId: string }>
  | DomainEvent<'MqttUserDeleted', { mqttUserId: string }>;

/** A topic rule of an MQTT user: stream `mqttAcl-<tenant>.<id>`. */
export type MqttAclEvent =
  | DomainEvent<'MqttAclCreated', MqttAclFields & { aclId: string }>
  | DomainEvent<'MqttAclUpdated', MqttAclFields & { aclId: string }>
  | DomainEvent<'MqttAclDeleted', { aclId: string }>;

export type ForwardAreaEvent = ForwardServerEvent | ForwardRuleEvent | MqttUserEvent | MqttAclEvent;
