import type { MqttOverview } from '../system/mqtt.ts';

/**
 * The broker as the MQTT screen sees it (spec §2 system → MQTT): its clients and rates, and cutting one session.
 * `tenantId` null is the platform administrator's view (every tenant); a tenant's sees its own devices and MQTT users.
 */
export interface BrokerAdminPort {
  overview(scope: { tenantId: string | null; keyword?: string }): Promise<MqttOverview>;
  /** Ends the client's connection if it is in scope: false when no such client is connected (or not the tenant's). */
  disconnect(scope: { tenantId: string | null }, clientId: string): Promise<boolean>;
}
