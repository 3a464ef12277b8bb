import { z } from 'zod';
import { route } from '../http/route.ts';

/** Permission strings of the MQTT screen (spec §2 system → MQTT). */
export const mqttAdminPerm = {
  list: 'system:mqtt:list',
  disconnect: 'system:mqtt:disconnect',
} as const;

/** One client connected to the broker: a device's session, or an MQTT user's (a third-party client). */
export const mqttClientRow = z.object({
  /** The id the broker keeps the connection under (a device's: its own namespace, then the id it chose). */
  clientId: z.string(),
  kind: z.enum(['device', 'mqttUser']),
  /** The tenant of the device or of the MQTT user. */
  tenantId: z.string(),
  deviceId: z.string().nullable(),
  sn: z.string().nullable(),
  name: z.string().nullable(),
  username: z.string().nullable(),
  address: z.string().nullable(),
  connectedAt: z.string().nullable(),
  /** Messages the connection has published since it connected. */
  messagesIn: z.number().int(),
  /** The topic filters it subscribed to, where the broker knows them (the embedded one). */
  subscriptions: z.array(z.object({ topic: z.string(), qos: z.number().int() })),
});
export type MqttClientRow = z.infer<typeof mqttClientRow>;

/** What the MQTT screen shows: the broker, its clients by tenant, and message rates. */
export const mqttOverview = z.object({
  /** `embedded`: Aedes in the platform's process; `external`: MQTT_URL; `none`: no broker in the process that answered. */
  mode: z.enum(['embedded', 'external', 'none']),
  /** Where devices connect (`mqtt://host:port`), the password of an external URL left out. */
  address: z.string().nullable(),
  healthy: z.boolean(),
  /** Whether the broker lists its clients and their subscriptions here (the embedded one does). */
  listsClients: z.boolean(),
  clients: z.array(mqttClientRow),
  /** Connected clients per tenant (the caller's tenant alone unless the platform administrator asks). */
  byTenant: z.array(z.object({ tenantId: z.string(), clients: z.number().int() })),
  rates: z.object({
    /** Messages received since the broker started (in the caller's scope). */
    messagesIn: z.number().int(),
    /** Messages per second received over the last minute (in the caller's scope). */
    perSecond: z.number(),
    windowSeconds: z.number().int(),
  }),
});
export type MqttOverview = z.infer<typeof mqttOverview>;

export const mqttClientQuery = z
  .object({
    /** A part of the client id, SN, device name or username, any case. */
    keyword: z.string().trim().max(128).optional(),
  })
  .strict();
export const mqttDisconnectBody = z.object({ clientId: z.string().min(1).max(512) }).strict();

/** System management → MQTT (spec §2). */
export const systemMqttRoutes = {
  'mqttBroker.overview': route({
    method: 'GET',
    path: '/api/auth/mqtt',
    permission: mqttAdminPerm.list,
    tag: 'mqtt',
    summary: 'The MQTT broker (embedded or external), its connected clients by tenant with their subscriptions, and message rates',
    query: mqttClientQuery,
    response: mqttOverview,
    reads: [],
  }),
  'mqttBroker.disconnect': route({
    method: 'POST',
    path: '/api/auth/mqtt/disconnect',
    permission: mqttAdminPerm.disconnect,
    tag: 'mqtt',
    summary: 'Disconnects one client of the broker now (a tenant administrator: only its own tenant’s devices)',
    body: mqttDisconnectBody,
    response: z.object({ disconnected: z.boolean() }),
    reads: [],
  }),
};
export type SystemMqttRoutes = typeof systemMqttRoutes;
