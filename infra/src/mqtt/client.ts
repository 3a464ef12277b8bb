// First: mqtt-packet's `debug` calls cost nothing while DEBUG leaves them off (quiet-debug.ts).
import './quiet-debug.ts';
import { createHash, randomBytes } from 'node:crypto';
import { connect, type IClientOptions, type IPublishPacket, type MqttClient } from 'mqtt';
import {
  matchesTopicFilter,
  type MqttHandler,
  type MqttMessage,
  type MqttPort,
  type OnMessageOptions,
  type PublishOptions,
} from '@iot/contracts/ports/mqtt.ts';
import { encodePayload } from './codec.ts';

/**
 * The platform as a client of an external broker (`MQTT_URL`: Mosquitto, EMQX). Device messages come
 * through shared subscriptions (`$share/<group>/<filter>`), so several ingest processes split the load and
 * each message reaches one of them. Device auth is the broker's job there (Mosquitto's dynamic security,
 * EMQX's HTTP hooks).
 *
 * A QoS 1 message is acknowledged (PUBACK) only once every handler has resolved, i.e. its rows are durable;
 * with a persistent session (`persistentSession`, a stable `clientId`) a process that dies before that gets
 * it again from the broker when it comes back. Messages are handled concurrently, up to `maxInFlight`: the
 * broker sends no more un-acknowledged ones than that (MQTT 5 receive maximum), and past it the client stops
 * reading, which is the back-pressure from the store to the broker.
 */
export interface ExternalMqttOptions {
  /** Default `MQTT_URL`; credentials go in it (`mqtt://user:password@host:1883`). */
  url?: string;
  /** Shared-subscription group of the platform's ingest processes; default 'ingest'. */
  group?: string;
  /** false subscribes to each filter directly, for a broker without shared subscriptions. */
  shared?: boolean;
  /** Must be stable across restarts, and differ between processes, for a persistent session; default random. */
  clientId?: string;
  /** Keep the session (subscriptions, messages not yet acknowledged or queued meanwhile) across disconnects. */
  persistentSession?: boolean;
  /** QoS of the platform's subscriptions; default 1. */
  qos?: 0 | 1 | 2;
  /** Messages being handled at once; default 1000. */
  maxInFlight?: number;
  /** How long `close` waits for messages being handled to be acknowledged; default 10 s. */
  closeTimeoutMs?: number;
  /** A failed handler: the message is not acknowledged and is handled again after a pause. */
  onHandlerError?: (error: unknown, message: MqttMessage) => void;
  /** Anything else mqtt.js accepts (TLS, ...). */
  clientOptions?: IClientOptions;
}

/** Writes a packet on mqtt.js's connection with its own writer, private in its types (the way its handlers acknowledge). */
function sendPacket(client: object, packet: object): void {
  if (!('_sendPacket' in client) || typeof client._sendPacket !== 'function')
    throw new Error('mqtt.js has no _sendPacket: check its version');
  Reflect.apply(client._sendPacket, client, [packet]);
}

/** A broker URL and its credentials apart, decoded (mqtt.js would pass `%23` on as it is). */
export function brokerAddress(url: string): { url: string; username?: string; password?: string } {
  const parsed = new URL(url);
  const username = parsed.username ? decodeURIComponent(parsed.username) : undefined;
  const password = parsed.password ? decodeURIComponent(parsed.password) : undefined;
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.toString(), username, password };
}

/** The broker keeps a persistent session this long after the process went away (MQTT 5 session expiry). */
const SESSION_EXPIRY_S = 7 * 24 * 3600;
/** Handed to mqtt.js' handleMessage callback so that it reads the next packet but sends no PUBACK: that comes later. */
const ACK_LATER = new Error('acknowledged once handled');
const RETRY_MS = [200, 1000, 5000];
/** How long a message that no handler claims waits for one to be registered before it is acknowledged unhandled. */
const UNCLAIMED_WAIT_MS = 30_000;
/** A filter's subscription identifier, the same in every process and across restarts (redeliveries carry it). */
const subscriptionIdOf = (filter: string) => (createHash('sha1').update(filter).digest().readUInt32BE(0) % 268_435_455) + 1;

export async function connectExternalMqtt(options: ExternalMqttOptions = {}): Promise<MqttPort> {
  const url = options.url ?? process.env.MQTT_URL;
  if (!url) throw new Error('MQTT_URL is not set');
  const group = options.group ?? 'ingest';
  const shared = options.shared ?? true;
  const qos = options.qos ?? 1;
  const maxInFlight = options.maxInFlight ?? 1000;
  const persistent = options.persistentSession ?? false;
  const onHandlerError = options.onHandlerError ?? ((error, message) => console.error(`mqtt handler failed for ${message.topic}`, error));
  /** One broker subscription per subscribed filter (`$share/<group>/<filter>` or the filter itself), however many handlers it has. */
  const subscriptions = new Map<string, { id: number; filter: string; handlers: Set<MqttHandler> }>();
  let closed = false;
  let registered = () => {};
  let nextRegistration = new Promise<void>((resolve) => (registered = resolve));

  const address = brokerAddress(url);
  const client: MqttClient = connect(address.url, {
    username: address.username,
    password: address.password,
    clientId: options.clientId ?? `platform-${randomBytes(6).toString('hex')}`,
    protocolVersion: 5,
    clean: !persistent,
    reconnectPeriod: 1000,
    connectTimeout: 10_000,
    ...options.clientOptions,
    properties: {
      receiveMaximum: maxInFlight,
      ...(persistent ? { sessionExpiryInterval: SESSION_EXPIRY_S } : {}),
      ...options.clientOptions?.properties,
    },
  });
  // Cannot be turned off: mqtt.js' error event must have a listener; reconnects are its own business.
  client.on('error', () => undefined);

  // A PUBACK answers a delivery on its connection: after a reconnect the broker delivers the message again.
  let connection = 0;
  client.on('close', () => (connection += 1));
  const acknowledge = (packet: IPublishPacket, on: number) => {
    if (on !== connection || !client.connected || packet.messageId === undefined) return;
    // mqtt.js acknowledges only when handleMessage calls back, which also holds back the next packet; calling
    // back at once and acknowledging here lets messages be handled side by side (its own handlers do the same).
    sendPacket(client, { cmd: 'puback', messageId: packet.messageId });
  };

  // Pauses of message handling never keep the process alive on their own (the connection does while open).
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)).unref());
  /**
   * The handlers of the subscriptions a delivery names (MQTT 5 subscription identifiers: a message matching two
   * filters comes once per subscription), else of every filter the topic matches. A persistent session
   * delivers before the handlers are registered again: such a message waits for them, a little.
   */
  async function handlersOf(packet: IPublishPacket): Promise<MqttHandler[]> {
    const ids = [packet.properties?.subscriptionIdentifier ?? []].flat();
    const deadline = Date.now() + (persistent ? UNCLAIMED_WAIT_MS : 0);
    for (;;) {
      const named = [...subscriptions.values()].filter((s) => ids.includes(s.id));
      const matching = named.length > 0 ? named : [...subscriptions.values()].filter((s) => matchesTopicFilter(s.filter, packet.topic));
      if (matching.length > 0 || closed || Date.now() > deadline) return matching.flatMap((s) => [...s.handlers]);
      await Promise.race([nextRegistration, sleep(deadline - Date.now())]);
    }
  }

  async function handle(packet: IPublishPacket, message: MqttMessage): Promise<void> {
    const matching = await handlersOf(packet);
    for (let attempt = 0; ; attempt++) {
      try {
        await Promise.all(matching.map((handler) => handler(message)));
        return;
      } catch (error) {
        onHandlerError(error, message);
        if (closed) throw error;
        await sleep(RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]!);
      }
    }
  }

  const inFlight = new Set<Promise<void>>();
  const waitingForRoom: Array<() => void> = [];
  const track = (work: Promise<void>) => {
    const done = work
      .catch(() => undefined)
      .finally(() => {
        inFlight.delete(done);
        waitingForRoom.shift()?.();
      });
    inFlight.add(done);
  };

  // Set before the connection is up: a persistent session's queued messages arrive right after CONNACK.
  client.handleMessage = (packet: IPublishPacket, callback: (error?: Error) => void) => {
    const message: MqttMessage = {
      topic: packet.topic,
      payload: Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload),
      qos: packet.qos,
      retain: packet.retain ?? false,
      messageId: packet.messageId,
      dup: packet.dup,
    };
    const on = connection;
    const handled = handle(packet, message);
    track(packet.qos === 0 ? handled : handled.then(() => acknowledge(packet, on)));
    const next = () => callback(packet.qos === 0 ? undefined : ACK_LATER);
    if (inFlight.size < maxInFlight) next();
    else waitingForRoom.push(next);
  };

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => {
      client.end(true);
      reject(error);
    };
    client.once('connect', () => {
      client.off('error', onError);
      resolve();
    });
    client.once('error', onError);
  });

  const subscriptionOf = (topicFilter: string, share: boolean) => (share ? `$share/${group}/${topicFilter}` : topicFilter);
  let closing: Promise<void> | undefined;

  return {
    async onMessage(topicFilter: string, handler: MqttHandler, { shared: share = shared }: OnMessageOptions = {}) {
      const subscription = subscriptionOf(topicFilter, share);
      let entry = subscriptions.get(subscription);
      if (!entry) {
        const id = subscriptionIdOf(subscription);
        try {
          // mqtt.js rejects when the broker answers the subscription with a failure code.
          await client.subscribeAsync(subscription, { qos, properties: { subscriptionIdentifier: id } });
        } catch (error) {
          throw new Error(`broker refused the subscription to ${subscription}: ${(error as Error).message}`, { cause: error });
        }
        entry = subscriptions.get(subscription) ?? { id, filter: topicFilter, handlers: new Set() };
        subscriptions.set(subscription, entry);
      }
      const own = entry;
      own.handlers.add(handler);
      registered();
      nextRegistration = new Promise<void>((resolve) => (registered = resolve));
      return {
        async off() {
          // Unsubscribed first: a message already on its way still finds its handler and is not acknowledged unhandled.
          if (own.handlers.size === 1 && own.handlers.has(handler) && client.connected) await client.unsubscribeAsync(subscription);
          own.handlers.delete(handler);
          if (own.handlers.size === 0 && subscriptions.get(subscription) === own) subscriptions.delete(subscription);
        },
      };
    },

    async publish(topic: string, payload: Buffer | string | object, { qos: publishQos = 1, retain = false }: PublishOptions = {}) {
      await client.publishAsync(topic, encodePayload(payload), { qos: publishQos, retain });
    },

    async health() {
      return client.connected
        ? { ok: true, detail: address.url }
        : { ok: false, detail: client.reconnecting ? 'reconnecting' : 'disconnected' };
    },

    close() {
      closing ??= (async () => {
        closed = true;
        // What is being handled is acknowledged before the connection ends; past the timeout the broker redelivers it.
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise((resolve) => (timer = setTimeout(resolve, options.closeTimeoutMs ?? 10_000)));
        await Promise.race([Promise.all([...inFlight]), timeout]);
        clearTimeout(timer);
        await client.endAsync();
      })();
      return closing;
    },
  };
}
