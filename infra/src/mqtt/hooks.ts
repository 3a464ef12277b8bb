import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import {
  MQTT_HOOK_SECRET_HEADER,
  brokerHookRoutes,
  mqttAuthenticateBody,
  mqttAuthorizeBody,
  type MqttHookAnswer,
} from '@iot/contracts/telemetry/mqtt-hooks.ts';
import { downlinkFilters, mayPublishOn, type DeviceRegistry } from '@iot/ingest';
import type { RoutesPlugin } from '../http/app.ts';
import { replyError } from '../http/envelope.ts';

const digest = (text: string) => createHash('sha256').update(text).digest();
const same = (a: string | undefined, b: string | undefined) => a !== undefined && b !== undefined && timingSafeEqual(digest(a), digest(b));

/**
 * Failed authentications kept per key (a username, an address) over a sliding window: past the limit a key is
 * refused without its secret being looked at, until its oldest failures leave the window. Held in memory: each
 * API process counts its own (device secrets are 256-bit, this is defence in depth against guessing).
 */
export function failureThrottle(limits: { perUsername: number; perAddress: number; windowMs: number }, now = Date.now) {
  const failures = new Map<string, number[]>();
  const recent = (key: string) => {
    const kept = (failures.get(key) ?? []).filter((at) => at > now() - limits.windowMs);
    if (kept.length === 0) failures.delete(key);
    else failures.set(key, kept);
    return kept.length;
  };
  const keys = (username: string, address: string) =>
    [
      [`user:${username}`, limits.perUsername],
      [`addr:${address}`, limits.perAddress],
    ] as const;
  return {
    refused: (username: string, address: string) => keys(username, address).some(([key, limit]) => recent(key) >= limit),
    failed(username: string, address: string) {
      for (const [key] of keys(username, address)) failures.set(key, [...(failures.get(key) ?? []), now()]);
      // Bounded: the oldest keys go first when an attacker spreads over many usernames.
      while (failures.size > 100_000) failures.delete(failures.keys().next().value!);
    },
  };
}
export const HOOK_THROTTLE = { perUsername: 10, perAddress: 50, windowMs: 5 * 60_000 } as const;

export interface MqttHookOptions {
  /** `MQTT_HOOK_SECRET`: EMQX sends it in the `x-mqtt-hook-secret` header. */
  secret: string;
  registry: Pick<DeviceRegistry, 'authenticate' | 'bySn'>;
  /** The platform's own account on the broker (MQTT_URL's credentials): let in as a superuser. */
  platform?: { username?: string; password?: string };
  /** Failed attempts allowed per username and per device address within the window; default HOOK_THROTTLE. */
  throttle?: { perUsername: number; perAddress: number; windowMs: number };
}

/**
 * EMQX 5's HTTP authentication and authorization (`authentication` and `authorization` sources of type
 * `http`): a device logs in with SN and secret (or a ThingsBoard token as username) and may then publish only
 * on its own topics and subscribe to its own downlink, as on the embedded broker. Declared in contracts/
 * (`brokerHookRoutes`, permission `brokerSecret`) beside the route table, bound here: the caller is the broker,
 * known by the shared secret in a header, and EMQX reads its own answer format, not the envelope.
 */
export function mqttHookRoutes(options: MqttHookOptions): RoutesPlugin {
  const { registry, platform } = options;
  const fromBroker = (request: FastifyRequest) => {
    const header = request.headers[MQTT_HOOK_SECRET_HEADER];
    return same(typeof header === 'string' ? header : undefined, options.secret);
  };
  /** The device an MQTT username names: its SN, or a ThingsBoard access token. */
  const deviceNamed = async (username: string | undefined) =>
    username ? ((await registry.bySn(username)) ?? (await registry.authenticate(username, undefined))) : null;
  const isPlatform = (username: string | undefined) => !!platform?.username && username === platform.username;
  const throttle = failureThrottle(options.throttle ?? HOOK_THROTTLE);

  return (app) => {
    const answer = (reply: FastifyReply, body: MqttHookAnswer) => reply.status(200).send(body);
    /** The route's options from its declaration in contracts/ (permission, OpenAPI, body schema). */
    const declared = (spec: (typeof brokerHookRoutes)[keyof typeof brokerHookRoutes]) => ({
      config: { permission: spec.permission },
      // `brokerSecret`: before validation, so that a caller without the secret learns nothing of the bodies.
      preValidation: async (request: FastifyRequest, reply: FastifyReply) => {
        if (!fromBroker(request)) return replyError(reply, request, 'UNAUTHENTICATED');
      },
      schema: { tags: [spec.tag], summary: spec.summary, body: spec.body, response: { 200: spec.response } },
    });
    const { 'mqttHook.authenticate': authenticate, 'mqttHook.authorize': authorize } = brokerHookRoutes;

    app.post(authenticate.path, declared(authenticate), async (request, reply) => {
      const { username, password, clientid, peerhost } = request.body as z.output<typeof mqttAuthenticateBody>;
      // EMQX calls from its own address: the device's is in the body (`${peerhost}`), else the caller's stands in.
      const address = peerhost || request.ip;
      if (throttle.refused(username ?? '', address)) return answer(reply, { result: 'deny', is_superuser: false });
      if (isPlatform(username)) {
        if (same(password, platform?.password)) return answer(reply, { result: 'allow', is_superuser: true });
        throttle.failed(username ?? '', address);
        return answer(reply, { result: 'deny', is_superuser: false });
      }
      const device = await registry.authenticate(username, password || undefined);
      if (!device) throttle.failed(username ?? '', address);
      // A device's client id is its SN: no device can connect under another's and take its session over.
      return answer(reply, { result: device && clientid === device.sn ? 'allow' : 'deny', is_superuser: false });
    });

    app.post(authorize.path, declared(authorize), async (request, reply) => {
      const { username, topic, action } = request.body as z.output<typeof mqttAuthorizeBody>;
      if (isPlatform(username)) return answer(reply, { result: 'allow' });
      const device = await deviceNamed(username);
      const allowed =
        !!device && (action === 'publish' ? mayPublishOn(device.sn, topic) : downlinkFilters(device.sn, device.nodeType).includes(topic));
      return answer(reply, { result: allowed ? 'allow' : 'deny' });
    });
  };
}
