import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import {
  MQTT_HOOK_SECRET_HEADER,
  mqttAuthenticateBody,
  mqttAuthorizeBody,
  mqttHookAnswer,
  mqttHookPaths,
  type MqttHookAnswer,
} from '@iot/contracts/telemetry/mqtt-hooks.ts';
import { downlinkFilters, mayPublishOn, type DeviceRegistry } from '@iot/ingest';
import type { RoutesPlugin } from '../http/app.ts';
import { replyError } from '../http/envelope.ts';

const digest = (text: string) => createHash('sha256').update(text).digest();
const same = (a: string | undefined, b: string | undefined) => a !== undefined && b !== undefined && timingSafeEqual(digest(a), digest(b));

export interface MqttHookOptions {
  /** `MQTT_HOOK_SECRET`: EMQX sends it in the `x-mqtt-hook-secret` header. */
  secret: string;
  registry: Pick<DeviceRegistry, 'authenticate' | 'bySn'>;
  /** The platform's own account on the broker (MQTT_URL's credentials): let in as a superuser. */
  platform?: { username?: string; password?: string };
}

/**
 * EMQX 5's HTTP authentication and authorization (`authentication` and `authorization` sources of type
 * `http`): a device logs in with SN and secret (or a ThingsBoard token as username) and may then publish only
 * on its own topics and subscribe to its own downlink, as on the embedded broker. Outside the route table
 * because the caller is the broker, known by the shared secret in a header, and EMQX reads its own answer
 * format, not the envelope; the bodies are checked by the zod schemas in contracts/.
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

  return (app) => {
    const answer = (reply: FastifyReply, body: MqttHookAnswer) => reply.status(200).send(body);
    const schema = (summary: string, body: z.ZodType) => ({
      tags: ['mqttConfig'],
      summary,
      body,
      response: { 200: mqttHookAnswer },
    });

    app.post(
      mqttHookPaths.authenticate,
      { config: { permission: 'public' }, schema: schema('EMQX HTTP authentication: may this client connect?', mqttAuthenticateBody) },
      async (request, reply) => {
        if (!fromBroker(request)) return replyError(reply, request, 'UNAUTHENTICATED');
        const { username, password } = request.body as z.output<typeof mqttAuthenticateBody>;
        if (isPlatform(username))
          return answer(
            reply,
            same(password, platform?.password) ? { result: 'allow', is_superuser: true } : { result: 'deny', is_superuser: false },
          );
        const device = await registry.authenticate(username, password || undefined);
        return answer(reply, { result: device ? 'allow' : 'deny', is_superuser: false });
      },
    );

    app.post(
      mqttHookPaths.authorize,
      {
        config: { permission: 'public' },
        schema: schema('EMQX HTTP authorization: may this client publish or subscribe here?', mqttAuthorizeBody),
      },
      async (request, reply) => {
        if (!fromBroker(request)) return replyError(reply, request, 'UNAUTHENTICATED');
        const { username, topic, action } = request.body as z.output<typeof mqttAuthorizeBody>;
        if (isPlatform(username)) return answer(reply, { result: 'allow' });
        const device = await deviceNamed(username);
        const allowed =
          !!device && (action === 'publish' ? mayPublishOn(device.sn, topic) : downlinkFilters(device.sn, device.nodeType).includes(topic));
        return answer(reply, { result: allowed ? 'allow' : 'deny' });
      },
    );
  };
}
