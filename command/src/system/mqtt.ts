import type { SystemMqttRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';

/**
 * System → MQTT (spec §2): an administrator ends one client's connection now. A session is no domain state (the
 * device may connect again at once), so nothing is appended; the broker's disconnect is what the device sees, and
 * a tenant's administrator reaches only its own tenant's devices.
 */
export const mqttBrokerHandlers: Pick<Handlers<SystemMqttRoutes>, 'mqttBroker.disconnect'> = {
  async 'mqttBroker.disconnect'({ body }, ctx) {
    const caller = callerOf(ctx);
    const admin = ctx.ports.brokerAdmin;
    if (!admin) return { disconnected: false };
    const disconnected = await admin.disconnect({ tenantId: caller.isSystemAdmin ? null : caller.tenantId }, body.clientId);
    return { disconnected };
  },
};
