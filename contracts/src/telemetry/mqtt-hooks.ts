import { z } from 'zod';

/**
 * EMQX 5's HTTP authentication and authorization hooks (README "External MQTT broker"): EMQX posts what a
 * client presents, the platform answers in EMQX's own format (not the `{code,msg,data}` envelope, which EMQX
 * would not read). EMQX sends the shared secret `MQTT_HOOK_SECRET` in a header of its HTTP requests.
 */
export const MQTT_HOOK_SECRET_HEADER = 'x-mqtt-hook-secret';
export const mqttHookPaths = {
  authenticate: '/api/iot/mqtt-auth/authenticate',
  authorize: '/api/iot/mqtt-auth/authorize',
} as const;

const text = (max: number) => z.string().max(max);

/**
 * EMQX body template: `{"username": "${username}", "password": "${password}", "clientid": "${clientid}",
 * "peerhost": "${peerhost}"}`. A device's client id must be its SN.
 */
export const mqttAuthenticateBody = z.object({
  username: text(256).optional(),
  /** Absent or empty: a ThingsBoard device, whose username is its access token. */
  password: text(512).optional(),
  clientid: text(256).optional(),
  /** The device's address, as EMQX sees it: failed attempts are throttled per address as well as per username. */
  peerhost: text(64).optional(),
});

/** EMQX body template: `{"username": "${username}", "clientid": "${clientid}", "topic": "${topic}", "action": "${action}"}`. */
export const mqttAuthorizeBody = z.object({
  username: text(256).optional(),
  clientid: text(256).optional(),
  topic: text(1024),
  action: z.enum(['publish', 'subscribe']),
  qos: z.union([z.coerce.number().int().min(0).max(2), z.literal('')]).optional(),
  retain: z.union([z.boolean(), z.enum(['true', 'false', '']), z.coerce.number()]).optional(),
});

/** EMQX reads `result`; `is_superuser` only from authentication. */
export const mqttHookAnswer = z.object({
  result: z.enum(['allow', 'deny', 'ignore']),
  is_superuser: z.boolean().optional(),
});
export type MqttHookAnswer = z.infer<typeof mqttHookAnswer>;
