import type { MqttClientEvent, SystemMqttRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import type { Decider } from '../decider.ts';
import { handleNewStream, newAggregateId } from '../handler.ts';
import { commandContextOf } from '../request.ts';

type Disconnect = { type: 'RecordDisconnect'; client: MqttClientEvent['data'] };

/** One cut of a client, a stream of its own: it only records (the broker's disconnect is what the client sees). */
export const mqttDisconnectDecider: Decider<Disconnect, MqttClientEvent, { recorded: boolean }> = {
  initialState: { recorded: false },
  evolve: () => ({ recorded: true }),
  decide: (command) => [{ type: 'MqttClientDisconnected', data: command.client }],
};
export const mqttDisconnectStream = (tenantId: string, id: string) => `mqttDisconnect-${tenantId}.${id}`;

/**
 * System → MQTT (spec §2): an administrator ends one client's connection now. A tenant's administrator reaches only
 * its own tenant's clients. A cut that ended a connection appends an audit event (who cut which client, when), shown
 * in the operation log; the session itself is no domain state (the client may connect again at once).
 */
export const mqttBrokerHandlers: Pick<Handlers<SystemMqttRoutes>, 'mqttBroker.disconnect'> = {
  async 'mqttBroker.disconnect'({ body }, ctx) {
    const caller = callerOf(ctx);
    const admin = ctx.ports.brokerAdmin;
    if (!admin) return { disconnected: false };
    const scope = { tenantId: caller.isSystemAdmin ? null : caller.tenantId };
    // Who the client is, read before it goes: the log names the device or MQTT user, not only the client id.
    const row = (await admin.overview({ ...scope, keyword: body.clientId })).clients.find((c) => c.clientId === body.clientId);
    const disconnected = await admin.disconnect(scope, body.clientId);
    if (disconnected) {
      const context = commandContextOf(ctx);
      await handleNewStream(
        ctx.ports.store,
        mqttDisconnectDecider,
        mqttDisconnectStream(caller.tenantId, newAggregateId(context)),
        {
          type: 'RecordDisconnect',
          client: {
            clientId: body.clientId,
            kind: row?.kind ?? null,
            clientTenantId: row?.tenantId ?? null,
            deviceId: row?.deviceId ?? null,
            name: row?.name ?? row?.username ?? null,
          },
        },
        context,
      );
    }
    return { disconnected };
  },
};
