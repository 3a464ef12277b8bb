import { z } from 'zod';
import { route } from '../http/route.ts';

/**
 * EMQX 5's HTTP authentication and authorization hooks (README "External MQTT broker"): EMQX posts what a
 * client presents, the platform answers in EMQX's own format (not the `{code,msg,data}` envelope, which EMQX
 * would not read). EMQX sends the shared secret `MQTT_HOOK_SECRET` in a header of its HTTP requests.
 */
export const MQTT_HOOK_SECRET_HEADER = 'x-mqtt-hook-secret';

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

/**
 * The hooks as routes of their own table: EMQX calls them with the hook secret (`brokerSecret`), they answer in
 * EMQX's format; the security walks iterate them beside the route table.
 */
export const brokerHookRoutes = {
  'mqttHook.authenticate': route({
    method: 'POST',
    path: '/api/iot/mqtt-auth/authenticate',
    permission: 'brokerSecret',
    tag: 'mqttConfig',
    summary: 'EMQX HTTP authentication: may this client connect?',
    body: mqttAuthenticateBody,
    response: mqttHookAnswer,
    reads: [],
    errors: ['UNAUTHENTICATED'],
  }),
  'mqttHook.authorize': route({
    method: 'POST',
    path: '/api/iot/mqtt-auth/authorize',
    permission: 'brokerSecret',
    tag: 'mqttConfig',
    summary: 'EMQX HTTP authorization: may this client publish or subscribe here?',
    body: mqttAuthorizeBody,
    response: mqttHookAnswer,
    reads: [],
    errors: ['UNAUTHENTICATED'],
  }),
} as const;
export const mqttHookPaths = {
  authenticate: brokerHookRoutes['mqttHook.authenticate'].path,
  authorize: brokerHookRoutes['mqttHook.authorize'].path,
} as const;
