import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Bus } from '@iot/contracts/ports/bus.ts';
import type { MqttPort } from '@iot/contracts/ports/mqtt.ts';
import { SessionEnded, textOf, type Intake } from '@iot/ingest';
import type { Config } from '../config.ts';
import { createInProcessBus } from '../bus/in-process.ts';
import type { EngineHealth } from '../http/context.ts';
import { connectExternalMqtt } from '../mqtt/client.ts';
import { startEmbeddedMqtt, type EmbeddedMqtt } from '../mqtt/embedded.ts';
import type { MqttUserAuth } from '../mqtt/users.ts';
import type { Stops } from './stops.ts';

export interface DeviceLink {
  bus: Bus;
  mqtt: MqttPort;
  /** The embedded broker's address (the demo simulator connects to it); null over an external broker. */
  embeddedUrl: string | null;
  /** The embedded broker itself (its clients, for the MQTT screen); null over an external broker. */
  embedded: EmbeddedMqtt | null;
}

/**
 * The bus (Kafka when KAFKA_BROKERS, else in-process) and the MQTT broker (external when MQTT_URL, else Aedes in
 * this process). The embedded broker lets devices in through the intake once it is up: until then none may connect,
 * and a device's client id is kept within its own namespace, so no other device can take it over.
 */
export async function startDeviceLink(
  config: Config,
  mqttPort: number | undefined,
  intake: () => Intake | undefined,
  logger: Logger,
  stops: Stops,
  engines: EngineHealth[],
  /** Third-party clients of the embedded broker (MQTT users and their topic rules): never a device's topics. */
  users: MqttUserAuth | null = null,
): Promise<DeviceLink> {
  // kafkajs is loaded only with KAFKA_BROKERS: its modules are not in the memory of a platform on the in-process bus.
  const bus = config.KAFKA_BROKERS
    ? await import('../bus/kafka.ts').then(({ createKafkaBus, kafkaBrokersFromEnv }) =>
        createKafkaBus({ brokers: kafkaBrokersFromEnv({ KAFKA_BROKERS: config.KAFKA_BROKERS }) }),
      )
    : createInProcessBus();
  stops.push(() => bus.close());
  engines.push({ name: config.KAFKA_BROKERS ? 'bus:kafka' : 'bus:in-process', check: () => bus.health() });
  let mqtt: MqttPort;
  let embeddedUrl: string | null = null;
  let embeddedBroker: EmbeddedMqtt | null = null;
  if (config.MQTT_URL) {
    mqtt = await connectExternalMqtt({
      url: config.MQTT_URL,
      group: config.MQTT_SHARE_GROUP,
      // A persistent session: what this process had not acknowledged, and what arrives while it is away, waits for it.
      clientId: config.MQTT_CLIENT_ID ?? `ingest-${hostname()}`,
      persistentSession: true,
      onHandlerError: (error, message) => logger.error({ err: error, topic: message.topic }, 'device message failed'),
    });
  } else {
    const embedded = await startEmbeddedMqtt({
      port: mqttPort ?? config.MQTT_PORT,
      authenticate: async (client, password) => {
        const user = await users?.authenticate(client, password);
        if (user !== null && user !== undefined) return user;
        const session = await intake()?.connect(client.clientId, client.connectionId ?? 0, client.username, password && textOf(password));
        return session ? { clientId: session.sessionId } : false;
      },
      authorizePublish: (client, topic) =>
        users?.owns(client.clientId) ? users.mayPublish(client.clientId, topic) : (intake()?.mayPublish(client.clientId, topic) ?? false),
      authorizeSubscribe: (client, filter) =>
        users?.owns(client.clientId)
          ? users.maySubscribe(client.clientId, filter)
          : (intake()?.maySubscribe(client.clientId, filter) ?? false),
      onDisconnect: (client) =>
        users?.owns(client.clientId) ? users.disconnected(client) : intake()?.disconnect(client.clientId, client.connectionId ?? 0),
      forwardsFrom: (clientId) => users?.owns(clientId) ?? false,
      onHandlerError: (error, message) =>
        error instanceof SessionEnded
          ? logger.info({ topic: message.topic }, 'message of a cut session refused')
          : logger.error({ err: error, topic: message.topic }, 'device message failed'),
    });
    mqtt = embedded;
    embeddedBroker = embedded;
    embeddedUrl = embedded.url;
    if (embedded.disconnect) users?.cutWith((clientId) => embedded.disconnect!(clientId));
  }
  const m = mqtt;
  stops.push(() => m.close());
  engines.push({ name: config.MQTT_URL ? 'mqtt:external' : 'mqtt:aedes', check: () => m.health() });
  return { bus, mqtt, embeddedUrl, embedded: embeddedBroker };
}
