import { createServer, type Server } from 'node:net';
import { Aedes, type AuthenticateError, type Client } from 'aedes';
import {
  encodePayload,
  type MqttAuthHooks,
  type MqttClientInfo,
  type MqttHandler,
  type MqttMessage,
  type MqttPort,
  type PublishOptions,
  matchesTopicFilter,
} from './port.ts';

/**
 * The embedded MQTT broker: Aedes inside the process, listening on `MQTT_PORT` (default 1883).
 * The platform receives device messages in Aedes' `published` hook, not through a loopback client: it
 * sees the device's client id, and the device's publish completes (PUBACK, next packet) only once the
 * platform has handled it, which is the back-pressure from the platform to the devices.
 */
export interface EmbeddedMqttOptions extends MqttAuthHooks {
  /** TCP port; default `MQTT_PORT` or 1883; 0 picks a free one (tests). */
  port?: number;
  /** Interface to listen on; default all. */
  host?: string;
  /** Where a handler's failure goes: the message has been acknowledged to the device all the same. */
  onHandlerError?: (error: unknown, message: MqttMessage) => void;
}

export interface EmbeddedMqtt extends MqttPort {
  /** The port actually bound. */
  port: number;
  /** `mqtt://host:port` for devices and tests. */
  url: string;
}

const BAD_USERNAME_OR_PASSWORD = 4;
const SERVER_UNAVAILABLE = 3;

const authError = (message: string, returnCode: number): AuthenticateError =>
  Object.assign(new Error(message), { returnCode }) as AuthenticateError;

export async function startEmbeddedMqtt(options: EmbeddedMqttOptions = {}): Promise<EmbeddedMqtt> {
  const usernames = new WeakMap<Client, string | undefined>();
  const info = (client: Client): MqttClientInfo => ({
    clientId: client.id,
    username: usernames.get(client),
  });
  const onHandlerError = options.onHandlerError ?? ((error, message) => console.error(`mqtt handler failed for ${message.topic}`, error));

  const registrations = new Set<{
    topicFilter: string;
    handler: MqttHandler;
  }>();

  const aedes = await Aedes.createBroker({
    published(packet, client, done) {
      // No client: the platform's own downlink or a will; only device messages go to the handlers.
      if (!client || registrations.size === 0) return done(null);
      const message: MqttMessage = {
        topic: packet.topic,
        payload: encodePayload(packet.payload),
        qos: packet.qos,
        retain: packet.retain,
        clientId: client.id,
      };
      const handling: Promise<void>[] = [];
      for (const { topicFilter, handler } of registrations) {
        if (!matchesTopicFilter(topicFilter, message.topic)) continue;
        handling.push(
          Promise.resolve()
            .then(() => handler(message))
            .catch((error: unknown) => onHandlerError(error, message)),
        );
      }
      if (handling.length === 0) return done(null);
      void Promise.all(handling).then(() => done(null));
    },
    authenticate(client, username, password, done) {
      usernames.set(client, username ?? undefined);
      if (!options.authenticate) return done(null, true);
      Promise.resolve()
        .then(() => options.authenticate!(info(client), password ?? undefined))
        .then(
          (ok) => (ok ? done(null, true) : done(authError('bad username or password', BAD_USERNAME_OR_PASSWORD), false)),
          (error: Error) => done(authError(`authentication failed: ${error.message}`, SERVER_UNAVAILABLE), false),
        );
    },
    authorizePublish(client, packet, done) {
      // client is null only for a will Aedes publishes on its own: the device was authorised when it set it.
      if (!client) return done(null);
      if (packet.topic.startsWith('$SYS/')) return done(new Error('$SYS topics are reserved for the broker'));
      if (!options.authorizePublish) return done(null);
      Promise.resolve()
        .then(() => options.authorizePublish!(info(client), packet.topic, encodePayload(packet.payload)))
        .then(
          (ok) => done(ok ? null : new Error(`publish to ${packet.topic} not allowed`)),
          (error: Error) => done(error),
        );
    },
    authorizeSubscribe(client, subscription, done) {
      if (!options.authorizeSubscribe) return done(null, subscription);
      Promise.resolve()
        .then(() => options.authorizeSubscribe!(info(client), subscription.topic))
        // A refused subscription is answered with failure code 0x80; the client stays connected.
        .then(
          (ok) => done(null, ok ? subscription : null),
          () => done(null, null),
        );
    },
  });

  const server: Server = createServer(aedes.handle);
  const requested = options.port ?? Number(process.env.MQTT_PORT ?? 1883);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(requested, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : requested;
  const host = options.host && options.host !== '0.0.0.0' && options.host !== '::' ? options.host : '127.0.0.1';
  let closing: Promise<void> | undefined;

  return {
    port,
    url: `mqtt://${host}:${port}`,

    async onMessage(topicFilter: string, handler: MqttHandler) {
      const registration = { topicFilter, handler };
      registrations.add(registration);
      return { off: async () => void registrations.delete(registration) };
    },

    async publish(topic: string, payload: Buffer | string | object, { qos = 1, retain = false }: PublishOptions = {}) {
      await new Promise<void>((resolve, reject) =>
        aedes.publish(
          {
            cmd: 'publish',
            topic,
            payload: encodePayload(payload),
            qos,
            retain,
            dup: false,
          },
          (error) => (error ? reject(error) : resolve()),
        ),
      );
    },

    async health() {
      if (aedes.closed || !server.listening) return { ok: false, detail: 'closed' };
      return {
        ok: true,
        detail: `${aedes.connectedClients} client(s) on port ${port}`,
      };
    },

    close() {
      closing ??= (async () => {
        const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
        // Aedes disconnects every client, which lets the server finish closing.
        await new Promise<void>((resolve) => aedes.close(() => resolve()));
        await serverClosed;
      })();
      return closing;
    },
  };
}
