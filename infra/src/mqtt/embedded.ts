// First: mqtt-packet's `debug` calls cost nothing while DEBUG leaves them off (quiet-debug.ts).
import './quiet-debug.ts';
import { createServer, type Server } from 'node:net';
import { Aedes, type AuthenticateError, type Client, type PublishPacket } from 'aedes';
import {
  matchesTopicFilter,
  type MqttAuthHooks,
  type MqttClientInfo,
  type MqttHandler,
  type MqttMessage,
  type MqttPort,
  type MqttRefusal,
  type PublishOptions,
} from '@iot/contracts/ports/mqtt.ts';
import { encodePayload } from './codec.ts';
import { mqttFront, ReasonCode, type MqttConnectionSide } from './v5.ts';

/**
 * The embedded MQTT broker: Aedes inside the process, listening on `MQTT_PORT` (default 1883).
 * The platform receives device messages in Aedes' `authorizePublish` hook, not through a loopback client: it
 * sees the device's client id, and the device's publish completes (PUBACK, next packet) only once the
 * platform has handled it (stored it), which is both the QoS 1 guarantee and the back-pressure from the
 * platform to the devices. (Aedes writes a QoS 1 PUBACK before its `published` hook runs.)
 */
export interface EmbeddedMqttOptions extends MqttAuthHooks {
  /** TCP port; default `MQTT_PORT` or 1883; 0 picks a free one (tests). */
  port?: number;
  /** Interface to listen on; default all. */
  host?: string;
  /** Where a handler's failure goes: the message is not acknowledged, and the device's connection is closed. */
  onHandlerError?: (error: unknown, message: MqttMessage) => void;
  /** A client's connection ended (network, keepalive, or taken over by a newer one with its client id). */
  onDisconnect?: (client: MqttClientInfo) => void;
  /** Sessions whose messages reach other clients' subscriptions (third-party MQTT users'; a device's never do). */
  forwardsFrom?: (clientId: string) => boolean;
}

/** A connected client as the MQTT screen lists it (spec §2 system → MQTT). */
export interface EmbeddedClientInfo {
  clientId: string;
  username: string | null;
  address: string | null;
  connectedAt: Date;
  /** Messages it published on this connection. */
  messagesIn: number;
  subscriptions: Array<{ topic: string; qos: number }>;
}

export interface EmbeddedMqtt extends MqttPort {
  /** The port actually bound. */
  port: number;
  /** `mqtt://host:port` for devices and tests. */
  url: string;
  /** The clients connected now, with what they subscribed to and published. */
  inspect(): EmbeddedClientInfo[];
  /** Messages received from clients since the broker started. */
  messagesIn(): number;
}

/** An MQTT 5 device is told in its PUBACK why its message was not taken; a 3.1.1 device only gets the PUBACK. */
const refusePublish = (client: Client, messageId: number, refusal: MqttRefusal) =>
  (client.conn as Partial<MqttConnectionSide>).refusePublish?.(
    messageId,
    refusal.refused === 'topic' ? ReasonCode.topicNameInvalid : ReasonCode.payloadFormatInvalid,
  );

const notAllowed = (topic: string) => new Error(`publish to ${topic} not allowed`);

const BAD_USERNAME_OR_PASSWORD = 4;
const SERVER_UNAVAILABLE = 3;

const authError = (message: string, returnCode: number): AuthenticateError =>
  Object.assign(new Error(message), { returnCode }) as AuthenticateError;

export async function startEmbeddedMqtt(options: EmbeddedMqttOptions = {}): Promise<EmbeddedMqtt> {
  const usernames = new WeakMap<Client, string | undefined>();
  const connections = new WeakMap<Client, number>();
  let connectionCount = 0;
  /** When each connection was let in, and how many messages it published. */
  const traffic = new WeakMap<Client, { connectedAt: Date; messagesIn: number }>();
  let messagesIn = 0;
  const trafficOf = (client: Client) => {
    let entry = traffic.get(client);
    if (!entry) traffic.set(client, (entry = { connectedAt: new Date(), messagesIn: 0 }));
    return entry;
  };
  const connectionOf = (client: Client) => {
    if (!connections.has(client)) connections.set(client, ++connectionCount);
    return connections.get(client)!;
  };
  const info = (client: Client): MqttClientInfo => ({
    clientId: client.id,
    username: usernames.get(client),
    connectionId: connectionOf(client),
  });
  const onHandlerError = options.onHandlerError ?? ((error, message) => console.error(`mqtt handler failed for ${message.topic}`, error));

  /** Settles once a client's messages so far are handled (Aedes handles the packets of one read side by side). */
  const handledUpTo = new WeakMap<Client, Promise<unknown>>();
  const settled = Promise.resolve();
  const registrations = new Set<{
    topicFilter: string;
    handler: MqttHandler;
  }>();

  /**
   * Hands an authorised message to the handlers. Aedes acknowledges (PUBACK) once `done` is called: the handlers have
   * stored the message by then. A handler that fails leaves it unacknowledged (the connection drops), so the device
   * sends it again.
   */
  const deliver = async (client: Client, packet: PublishPacket, payload: Buffer, done: (error?: Error | null) => void) => {
    // A device's message is for the platform alone: never kept for later subscribers (nor forwarded, below).
    packet.retain = false;
    const message: MqttMessage = {
      topic: packet.topic,
      payload,
      qos: packet.qos,
      retain: false,
      clientId: client.id,
      connectionId: connectionOf(client),
      before: handledUpTo.get(client) ?? settled,
      messageId: packet.messageId,
      dup: packet.dup,
    };
    // Every message passes here: no copies of the registrations per message.
    const handling: ReturnType<MqttHandler>[] = [];
    for (const r of registrations) if (matchesTopicFilter(r.topicFilter, message.topic)) handling.push(r.handler(message));
    // Settled once this message is handled and the earlier ones are (`before` never rejects): one `then` a message,
    // where `allSettled` of the two made an array, a promise and two result objects.
    const before = message.before!;
    const mine = handling.length === 1 ? Promise.resolve(handling[0]) : Promise.allSettled(handling);
    handledUpTo.set(
      client,
      mine.then(
        () => before,
        () => before,
      ),
    );
    try {
      const refusal = handling.length === 1 ? await handling[0] : (await Promise.all(handling)).find((verdict) => !!verdict);
      if (refusal && packet.qos > 0) refusePublish(client, packet.messageId!, refusal);
      done(null);
    } catch (error) {
      onHandlerError(error, message);
      done(error as Error);
    }
  };

  const aedes = await Aedes.createBroker({
    // Device messages are handled in authorizePublish, not here: Aedes writes a QoS 1 PUBACK before it calls
    // `published`, and a device must not be told "received" before the platform has stored its message.
    published(_packet, _client, done) {
      done(null);
    },
    authenticate(client, username, password, done) {
      usernames.set(client, username ?? undefined);
      if (!options.authenticate) return done(null, true);
      Promise.resolve()
        .then(() => options.authenticate!(info(client), password ?? undefined))
        .then(
          (admission) => {
            if (!admission) return done(authError('bad username or password', BAD_USERNAME_OR_PASSWORD), false);
            // Before Aedes registers the client (a newer connection with the same id takes an older one over) and reads its session.
            if (typeof admission === 'object') client.id = admission.clientId;
            done(null, true);
          },
          (error: Error) => done(authError(`authentication failed: ${error.message}`, SERVER_UNAVAILABLE), false),
        );
    },
    authorizePublish(client, packet, done) {
      // client is null only for a will Aedes publishes on its own: the device was authorised when it set it.
      if (!client) return done(null);
      if (packet.topic.startsWith('$SYS/')) return done(new Error('$SYS topics are reserved for the broker'));
      trafficOf(client).messagesIn += 1;
      messagesIn += 1;
      const payload = encodePayload(packet.payload);
      // Every message passes here: a hook that answers at once (the intake's does) is not put behind promises.
      let verdict: boolean | Promise<boolean>;
      try {
        verdict = options.authorizePublish ? options.authorizePublish(info(client), packet.topic, payload) : true;
      } catch (error) {
        return done(error as Error);
      }
      if (verdict === true) return void deliver(client, packet, payload, done);
      if (verdict === false) return done(notAllowed(packet.topic));
      verdict.then(
        (ok) => (ok ? void deliver(client, packet, payload, done) : done(notAllowed(packet.topic))),
        (error: Error) => done(error),
      );
    },
    // Device to device traffic does not exist: a device's publish (Aedes stamps it with its client id) reaches the
    // platform's handlers above and no subscriber; only the platform's own downlink is delivered.
    authorizeForward(_client, packet) {
      const from = (packet as { clientId?: string }).clientId;
      return from === undefined || options.forwardsFrom?.(from) ? packet : null;
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

  aedes.on('client', (client) => void trafficOf(client));

  // A device's message (and its will) reaches no subscriber: authorizeForward drops it. Aedes' own publish after the
  // platform handled it (retained store, offline queues, topic matching, `published`) is skipped for it, since it was
  // about a tenth of the process's CPU at 5,000 OTA reports a second (issue 21); third-party users' messages go through it.
  // Its types leave out the client its protocol handlers pass.
  const brokerPublish = aedes.publish.bind(aedes) as unknown as (
    packet: PublishPacket,
    client: Client | null,
    done: (error?: Error) => void,
  ) => void;
  Object.assign(aedes, {
    publish(packet: PublishPacket, client: Client | null | ((error?: Error) => void), done?: (error?: Error) => void) {
      if (typeof client === 'function') return brokerPublish(packet, null, client);
      if (client && !options.forwardsFrom?.(client.id)) return done?.();
      brokerPublish(packet, client, done ?? (() => {}));
    },
  });

  if (options.onDisconnect) {
    const onDisconnect = options.onDisconnect;
    aedes.on('clientDisconnect', (client) => onDisconnect(info(client)));
  }

  // MQTT 5 clients reach Aedes (3.1/3.1.1 only) through a bridge; 3.1/3.1.1 clients byte for byte, their writes queued alike.
  const server: Server = createServer(mqttFront(aedes, (error) => console.warn(`mqtt 5 client dropped: ${error.message}`)));
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
  /** A connected client by the id the broker keeps it under (a device's: its session id, namespaced by the device). */
  const clientNamed = (clientId: string): Client | undefined => {
    // Aedes keeps its connected clients by id in a field its types leave out.
    const clients: unknown = 'clients' in aedes ? aedes.clients : undefined;
    return typeof clients === 'object' && clients !== null ? Reflect.get(clients, clientId) : undefined;
  };

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

    async publishTo(clientId: string, topic: string, payload: Buffer | string | object, { qos = 1 }: PublishOptions = {}) {
      const client = clientNamed(clientId);
      if (!client) return false;
      const packet = { cmd: 'publish' as const, topic, payload: encodePayload(payload), qos, retain: false, dup: false };
      await new Promise<void>((resolve, reject) => client.publish(packet, (error?: Error) => (error ? reject(error) : resolve())));
      return true;
    },

    async disconnect(clientId: string) {
      const client = clientNamed(clientId);
      if (!client) return false;
      // The device lost its right to the session: an MQTT 5 device is told it is not authorised.
      (client.conn as Partial<MqttConnectionSide>).closeReason?.(ReasonCode.notAuthorized);
      await new Promise<void>((resolve) => client.close(() => resolve()));
      return true;
    },

    inspect() {
      const clients: unknown = 'clients' in aedes ? aedes.clients : undefined;
      if (typeof clients !== 'object' || clients === null) return [];
      return Object.values(clients as Record<string, Client>)
        .filter((client) => client.connected)
        .map((client) => {
          const subscribed = (client as { subscriptions?: Record<string, { qos: number }> }).subscriptions ?? {};
          const { connectedAt, messagesIn: published } = trafficOf(client);
          const socket = client.conn as { remoteAddress?: string; remotePort?: number };
          return {
            clientId: client.id,
            username: usernames.get(client) ?? null,
            address: socket.remoteAddress ? `${socket.remoteAddress}:${socket.remotePort ?? ''}` : null,
            connectedAt,
            messagesIn: published,
            subscriptions: Object.entries(subscribed).map(([topic, sub]) => ({ topic, qos: sub.qos })),
          };
        });
    },

    messagesIn: () => messagesIn,

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
