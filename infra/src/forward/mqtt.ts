import { connect, type IClientOptions, type MqttClient } from 'mqtt';
import type { ForwardMqtt, ForwardMqttMessage, MqttTarget } from '@iot/contracts/ports/forward.ts';
import type { OutboundHttp } from '@iot/contracts/ports/outbound-http.ts';
import { OutboundError, errorClassOf } from '../outbound/errors.ts';

const CONNECT_TIMEOUT_MS = 10_000;

/** A refused login (CONNACK 4, 5 or MQTT 5's 134, 135) tells the tenant the broker answered with an error of its own. */
function failure(error: unknown, where: string): OutboundError {
  if (error instanceof OutboundError) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'number') return new OutboundError('ANSWER_REJECTED', `${where}: connack ${code}`, { cause: error });
  return new OutboundError(errorClassOf(error), `${where}: ${(error as Error).message}`, { cause: error });
}

/** A publish whose connection went away waits for a reconnect that never comes: it fails after the timeout instead. */
async function acknowledged<T>(publish: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      publish,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new OutboundError('TIMEOUT', 'no PUBACK')), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Forwarding to MQTT brokers a tenant sets, with the `mqtt` client: the host resolved and checked by the outbound
 * guard, the connection made to the checked address (TLS verified against the name). One connection per target,
 * kept while its configuration is unchanged and it stays up; publishes at QoS 1, in order.
 */
export function createForwardMqtt(options: { outbound: OutboundHttp; connectTimeoutMs?: number }): ForwardMqtt {
  const timeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const clients = new Map<string, Promise<MqttClient>>();

  async function open(target: MqttTarget): Promise<MqttClient> {
    const where = `${target.host}:${target.port}`;
    const { address } = await options.outbound.address(target.host);
    const settings: IClientOptions = {
      host: address,
      port: target.port,
      protocol: target.tls ? 'mqtts' : 'mqtt',
      servername: target.tls ? target.host : undefined,
      username: target.username ?? undefined,
      password: target.password ?? undefined,
      clientId: target.clientId ?? `iot-forward-${Math.random().toString(16).slice(2, 10)}`,
      connectTimeout: timeoutMs,
      reconnectPeriod: 0,
      clean: true,
    };
    const client = connect(settings);
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new OutboundError('TIMEOUT', `${where}: no CONNACK`)), timeoutMs);
        client.once('connect', () => (clearTimeout(timer), resolve()));
        client.once('error', (error) => (clearTimeout(timer), reject(failure(error, where))));
        client.once('close', () => (clearTimeout(timer), reject(new OutboundError('CONNECT_FAILED', `${where}: closed`))));
      });
    } catch (error) {
      client.end(true);
      throw error;
    }
    // An error later ends the connection: the next publish opens another.
    client.on('error', () => undefined);
    return client;
  }

  function clientFor(target: MqttTarget): Promise<MqttClient> {
    let client = clients.get(target.key);
    if (!client) {
      client = open(target);
      clients.set(target.key, client);
      const opened = client;
      opened.then(
        (c) => c.once('close', () => clients.get(target.key) === opened && clients.delete(target.key)),
        () => clients.get(target.key) === opened && clients.delete(target.key),
      );
    }
    return client;
  }

  return {
    async publish(target: MqttTarget, messages: readonly ForwardMqttMessage[]) {
      const client = await clientFor(target);
      try {
        for (const m of messages) await acknowledged(client.publishAsync(m.topic, m.payload, { qos: 1 }), timeoutMs);
      } catch (error) {
        clients.delete(target.key);
        client.end(true);
        throw failure(error, `${target.host}:${target.port}`);
      }
    },
    async test(target: MqttTarget) {
      const client = await open(target);
      await client.endAsync();
    },
    async close() {
      const all = [...clients.values()];
      clients.clear();
      await Promise.all(
        all.map((c) =>
          c.then(
            (client) => client.endAsync(),
            () => undefined,
          ),
        ),
      );
    },
  };
}
