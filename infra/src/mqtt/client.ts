import { randomBytes } from 'node:crypto';
import { connectAsync, type IClientOptions, type IPublishPacket, type MqttClient } from 'mqtt';
import { encodePayload, matchesTopicFilter, type MqttHandler, type MqttMessage, type MqttPort, type PublishOptions } from './port.ts';

/**
 * The platform as a client of an external broker (`MQTT_URL`: EMQX, Mosquitto). Device messages come
 * through shared subscriptions (`$share/<group>/<filter>`), so several platform instances split the
 * load and each message reaches one of them. Device auth is the broker's job there (HTTP auth hooks).
 */
export interface ExternalMqttOptions {
  /** Default `MQTT_URL`. */
  url?: string;
  /** Shared-subscription group of the platform's instances; default 'platform'. */
  group?: string;
  /** false subscribes to each filter directly, for a broker without shared subscriptions. */
  shared?: boolean;
  clientId?: string;
  username?: string;
  password?: string;
  /** QoS of the platform's subscriptions; default 1. */
  qos?: 0 | 1 | 2;
  /** Where a handler's failure goes: the message has been acknowledged to the broker all the same. */
  onHandlerError?: (error: unknown, message: MqttMessage) => void;
  /** Anything else mqtt.js accepts (MQTT 5, TLS, ...). */
  clientOptions?: IClientOptions;
}

export async function connectExternalMqtt(options: ExternalMqttOptions = {}): Promise<MqttPort> {
  const url = options.url ?? process.env.MQTT_URL;
  if (!url) throw new Error('MQTT_URL is not set');
  const group = options.group ?? 'platform';
  const shared = options.shared ?? true;
  const qos = options.qos ?? 1;
  const onHandlerError = options.onHandlerError ?? ((error, message) => console.error(`mqtt handler failed for ${message.topic}`, error));
  const registrations = new Set<{
    topicFilter: string;
    handler: MqttHandler;
  }>();

  const client: MqttClient = await connectAsync(url, {
    clientId: options.clientId ?? `platform-${randomBytes(6).toString('hex')}`,
    username: options.username,
    password: options.password,
    clean: true,
    reconnectPeriod: 1000,
    connectTimeout: 10_000,
    ...options.clientOptions,
  });
  // Cannot be turned off: mqtt.js' error event must have a listener; reconnects are its own business.
  client.on('error', () => undefined);

  // mqtt.js reads the next packet only when this calls back: a slow platform slows the broker's delivery to it.
  client.handleMessage = (packet: IPublishPacket, done: (error?: Error) => void) => {
    const message: MqttMessage = {
      topic: packet.topic,
      payload: Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload),
      qos: packet.qos,
      retain: packet.retain ?? false,
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
    void Promise.all(handling).then(() => done());
  };

  const subscription = (topicFilter: string) => (shared ? `$share/${group}/${topicFilter}` : topicFilter);
  let closing: Promise<void> | undefined;

  return {
    async onMessage(topicFilter: string, handler: MqttHandler) {
      const registration = { topicFilter, handler };
      registrations.add(registration);
      try {
        // mqtt.js rejects when the broker answers the subscription with a failure code.
        await client.subscribeAsync(subscription(topicFilter), { qos });
      } catch (error) {
        registrations.delete(registration);
        throw new Error(`broker refused the subscription to ${subscription(topicFilter)}: ${(error as Error).message}`, { cause: error });
      }
      return {
        async off() {
          registrations.delete(registration);
          const stillUsed = [...registrations].some((r) => r.topicFilter === topicFilter);
          if (!stillUsed && client.connected) await client.unsubscribeAsync(subscription(topicFilter));
        },
      };
    },

    async publish(topic: string, payload: Buffer | string | object, { qos: publishQos = 1, retain = false }: PublishOptions = {}) {
      await client.publishAsync(topic, encodePayload(payload), {
        qos: publishQos,
        retain,
      });
    },

    async health() {
      return client.connected
        ? { ok: true, detail: url }
        : {
            ok: false,
            detail: client.reconnecting ? 'reconnecting' : 'disconnected',
          };
    },

    close() {
      closing ??= client.endAsync().then(() => undefined);
      return closing;
    },
  };
}
