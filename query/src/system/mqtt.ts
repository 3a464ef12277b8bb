import type { MqttOverview, SystemMqttRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';

const noBroker: MqttOverview = {
  mode: 'none',
  address: null,
  healthy: false,
  listsClients: false,
  clients: [],
  byTenant: [],
  rates: { messagesIn: 0, perSecond: 0, windowSeconds: 0 },
};

/** System → MQTT (spec §2): the broker, its clients by tenant and message rates; a tenant sees only its own. */
export const mqttBrokerQueryHandlers: Pick<Handlers<SystemMqttRoutes>, 'mqttBroker.overview'> = {
  async 'mqttBroker.overview'({ query }, ctx) {
    const caller = callerOf(ctx);
    const admin = ctx.ports.brokerAdmin;
    if (!admin) return noBroker;
    return admin.overview({
      tenantId: caller.isSystemAdmin ? null : caller.tenantId,
      ...(query.keyword ? { keyword: query.keyword } : {}),
    });
  },
};
