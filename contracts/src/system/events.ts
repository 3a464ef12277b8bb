import type { DomainEvent } from '../event.ts';

/**
 * The audit trail of System → MQTT: an administrator cut a client's connection. The session is no domain state (the
 * client may connect again at once); the event says who cut which client, of which tenant, and when (its metadata).
 */
export type MqttClientEvent = DomainEvent<
  'MqttClientDisconnected',
  {
    clientId: string;
    kind: 'device' | 'mqttUser' | null;
    /** The tenant the client belongs to (a platform administrator may cut any tenant's). */
    clientTenantId: string | null;
    deviceId: string | null;
    /** The device's name or the MQTT user's username, for the operation log. */
    name: string | null;
  }
>;
export type MqttClientEventType = MqttClientEvent['type'];
