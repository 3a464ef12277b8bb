import { connectAsync } from 'mqtt';
import { afterEach, expect, it } from 'vitest';
import type { MqttMessage } from '@iot/contracts/ports/mqtt.ts';
import { startEmbeddedMqtt, type EmbeddedMqtt } from './embedded.ts';

let broker: EmbeddedMqtt | null = null;
afterEach(async () => {
  await broker?.close();
  broker = null;
});

it("settles a message's `before` only once the session's earlier messages are handled, and acknowledges each once it is", async () => {
  broker = await startEmbeddedMqtt({ port: 0, host: '127.0.0.1', authorizePublish: () => true });
  const seen: Array<{ message: MqttMessage; release: () => void }> = [];
  await broker.onMessage('#', (message) => new Promise<void>((release) => seen.push({ message, release })));
  const client = await connectAsync(broker.url, { clientId: 'c1', reconnectPeriod: 0 });
  try {
    const first = client.publishAsync('a/1', 'one', { qos: 1 });
    const second = client.publishAsync('a/2', 'two', { qos: 1 });
    await expect.poll(() => seen.length).toBe(2);
    let secondBefore = false;
    void seen[1]!.message.before!.then(() => (secondBefore = true));
    let firstAcked = false;
    void first.then(() => (firstAcked = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The first is still being handled: the second's `before` waits, and no PUBACK went out.
    expect(secondBefore).toBe(false);
    expect(firstAcked).toBe(false);
    seen[0]!.release();
    await expect.poll(() => secondBefore).toBe(true);
    await first;
    seen[1]!.release();
    await second;
  } finally {
    await client.endAsync();
  }
});

it('refuses a publish its hook denies, whether the hook answers at once or later', async () => {
  const errors: string[] = [];
  broker = await startEmbeddedMqtt({
    port: 0,
    host: '127.0.0.1',
    authorizePublish: (_client, topic) => (topic === 'later/no' ? Promise.resolve(false) : topic !== 'now/no'),
  });
  const handled: string[] = [];
  await broker.onMessage('#', (message) => void handled.push(message.topic));
  for (const topic of ['now/no', 'later/no']) {
    const client = await connectAsync(broker.url, { clientId: topic, reconnectPeriod: 0 });
    client.on('error', (error) => errors.push(error.message));
    // Aedes closes a connection whose publish is not authorised: the QoS 1 publish gets no PUBACK.
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    client.publish(topic, 'x', { qos: 1 });
    await closed;
    client.end(true);
  }
  const ok = await connectAsync(broker.url, { clientId: 'ok', reconnectPeriod: 0 });
  await ok.publishAsync('fine/yes', 'x', { qos: 1 });
  await ok.endAsync();
  expect(handled).toEqual(['fine/yes']);
});
