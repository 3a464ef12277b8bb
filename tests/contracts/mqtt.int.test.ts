import { randomUUID } from 'node:crypto';
import { connect, connectAsync, type IClientOptions, type IConnackPacket, type MqttClient } from 'mqtt';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectExternalMqtt } from '@iot/infra/mqtt/client.ts';
import { startEmbeddedMqtt, type EmbeddedMqtt } from '@iot/infra/mqtt/embedded.ts';
import type { MqttMessage, MqttPort } from '@iot/contracts/ports/mqtt.ts';
import { resolveEngine } from '../harness/engines.ts';
import { freePort } from '../harness/free-port.ts';
import { startMosquitto } from '../harness/mosquitto.ts';
import { waitFor as waitUntil } from '../harness/process.ts';

/** One adapter under test: the platform's port and the URL devices connect to, or why it is unavailable. */
interface Adapter {
  name: string;
  external: boolean;
  /** How the devices connect (MQTT 3.1.1 unless told). */
  devices?: IClientOptions;
  open(): Promise<{ sut: MqttPort; deviceUrl: string; close(): Promise<void> } | { skip: string }>;
}

const adapters: Adapter[] = [
  {
    name: 'embedded aedes',
    external: false,
    async open() {
      const sut = await startEmbeddedMqtt({ port: 0, host: '127.0.0.1' });
      return { sut, deviceUrl: sut.url, close: () => sut.close() };
    },
  },
  {
    // Aedes speaks 3.1.1: MQTT 5 devices reach it through the bridge in infra/src/mqtt/v5.ts.
    name: 'embedded aedes, MQTT 5 devices',
    external: false,
    devices: { protocolVersion: 5 },
    async open() {
      const sut = await startEmbeddedMqtt({ port: 0, host: '127.0.0.1' });
      return { sut, deviceUrl: sut.url, close: () => sut.close() };
    },
  },
  {
    name: 'mosquitto',
    external: true,
    async open() {
      const resolved = await resolveEngine('Mosquitto', 'MQTT_URL', startMosquitto);
      if (!resolved.ok) return { skip: resolved.reason };
      const { engine } = resolved;
      const sut = await connectExternalMqtt({
        url: engine.url,
        group: `platform-${randomUUID()}`,
      });
      return {
        sut,
        deviceUrl: engine.url,
        close: async () => (await sut.close(), await engine.stop()),
      };
    },
  },
];

const waitFor = (condition: () => boolean, what: string, timeoutMs = 10_000) => waitUntil(what, condition, timeoutMs, 10);

const devices: MqttClient[] = [];
async function connectDevice(url: string, options: IClientOptions = {}): Promise<MqttClient> {
  const client = await connectAsync(url, {
    clientId: `device-${randomUUID()}`,
    reconnectPeriod: 0,
    ...options,
  });
  devices.push(client);
  return client;
}
afterEach(async () => {
  await Promise.all(devices.splice(0).map((d) => d.endAsync(true)));
});

describe.each(adapters)('mqtt contract: $name', (adapter) => {
  let sut: MqttPort;
  let deviceUrl: string;
  const device = (url: string, options: IClientOptions = {}) => connectDevice(url, { ...adapter.devices, ...options });
  let close: (() => Promise<void>) | undefined;
  let skipped: string | undefined;

  beforeAll(async () => {
    const opened = await adapter.open();
    if ('skip' in opened) skipped = opened.skip;
    else ({ sut, deviceUrl, close } = opened);
  });
  beforeEach((context) => {
    if (skipped) context.skip(skipped);
  });
  afterAll(async () => close?.());

  it('is healthy', async () => {
    expect(await sut.health()).toMatchObject({ ok: true });
  });

  it('hands a device’s publish to the platform', async () => {
    const prefix = `t/${randomUUID()}`;
    const received: MqttMessage[] = [];
    await sut.onMessage(`${prefix}/device/+/telemetry`, (m) => void received.push(m));
    const d1 = await device(deviceUrl, { clientId: 'meter-1' });

    await d1.publishAsync(`${prefix}/device/meter-1/telemetry`, JSON.stringify({ power: 3.2 }), { qos: 1 });

    await waitFor(() => received.length === 1, 'the telemetry');
    expect(received[0]).toMatchObject({
      topic: `${prefix}/device/meter-1/telemetry`,
      qos: 1,
      retain: false,
    });
    expect(JSON.parse(received[0]!.payload.toString())).toEqual({ power: 3.2 });
    if (!adapter.external) expect(received[0]!.clientId).toBe('meter-1');
  });

  it('delivers only what matches the filter, to every matching handler, in the device’s order', async () => {
    const prefix = `t/${randomUUID()}`;
    const telemetry: string[] = [];
    const everything: string[] = [];
    await sut.onMessage(`${prefix}/+/telemetry`, (m) => void telemetry.push(m.payload.toString()));
    await sut.onMessage(`${prefix}/#`, (m) => void everything.push(m.payload.toString()));
    const d = await device(deviceUrl);

    for (let i = 0; i < 50; i++) await d.publishAsync(`${prefix}/d1/telemetry`, `t${i}`, { qos: 1 });
    await d.publishAsync(`${prefix}/d1/event`, 'e0', { qos: 1 });
    await d.publishAsync(`other/${prefix}/d1/telemetry`, 'elsewhere', {
      qos: 1,
    });
    // Handled after the one outside the filter: had that one been delivered, it would have come first.
    await d.publishAsync(`${prefix}/d1/telemetry`, 'last', { qos: 1 });

    await waitFor(() => everything.includes('last'), 'the last message');
    expect(telemetry).toEqual([...[...Array(50).keys()].map((i) => `t${i}`), 'last']);
    expect(everything).toEqual([...telemetry.slice(0, 50), 'e0', 'last']);
  });

  it('sends a downlink that the device receives', async () => {
    const topic = `t/${randomUUID()}/device/meter-2/command`;
    const d = await device(deviceUrl);
    const got: { topic: string; payload: string }[] = [];
    d.on('message', (t, payload) => got.push({ topic: t, payload: payload.toString() }));
    await d.subscribeAsync(topic, { qos: 1 });

    await sut.publish(topic, { command: 'reboot' });
    await sut.publish(topic, 'raw text', { qos: 0 });

    await waitFor(() => got.length === 2, 'the downlinks');
    expect(got).toEqual([
      { topic, payload: '{"command":"reboot"}' },
      { topic, payload: 'raw text' },
    ]);
  });

  it('keeps a retained downlink for a device that subscribes later', async () => {
    const topic = `t/${randomUUID()}/device/meter-3/config`;
    await sut.publish(topic, { interval: 60 }, { retain: true });
    const d = await device(deviceUrl);
    const got: string[] = [];
    d.on('message', (_t, payload) => got.push(payload.toString()));
    await d.subscribeAsync(topic, { qos: 1 });
    await waitFor(() => got.length === 1, 'the retained config');
    expect(got).toEqual(['{"interval":60}']);
    await sut.publish(topic, '', { retain: true }); // clears it
  });

  it('stops delivering to a handler that is off', async () => {
    const prefix = `t/${randomUUID()}`;
    const received: string[] = [];
    const registration = await sut.onMessage(`${prefix}/#`, (m) => void received.push(m.payload.toString()));
    // A handler that stays on: what it gets, the one turned off would have got by then.
    const stayed: string[] = [];
    await sut.onMessage(`${prefix}/#`, (m) => void stayed.push(m.payload.toString()));
    const d = await device(deviceUrl);
    await d.publishAsync(`${prefix}/a`, 'before', { qos: 1 });
    await waitFor(() => received.length === 1, 'the first message');

    await registration.off();
    await d.publishAsync(`${prefix}/a`, 'after', { qos: 1 });
    await waitFor(() => stayed.includes('after'), 'the message at the handler still on');
    expect(received).toEqual(['before']);
  });

  // Shared subscriptions are the external broker's way to split the load; the embedded broker has one platform.
  if (adapter.external)
    it('shares device messages among platform instances of one group', async () => {
      const prefix = `t/${randomUUID()}`;
      const group = `platform-${randomUUID()}`;
      const instances = [await connectExternalMqtt({ url: deviceUrl, group }), await connectExternalMqtt({ url: deviceUrl, group })];
      const received: string[][] = [[], []];
      await Promise.all(instances.map((p, i) => p.onMessage(`${prefix}/+/telemetry`, (m) => void received[i]!.push(m.payload.toString()))));
      const d = await device(deviceUrl);

      for (let i = 0; i < 40; i++) await d.publishAsync(`${prefix}/d${i}/telemetry`, `m${i}`, { qos: 1 });

      await waitFor(() => received[0]!.length + received[1]!.length >= 40, 'all messages');
      // A duplicate would reach an instance before a later message does: send later ones until each instance has one.
      for (let i = 0; !received.every((r) => r.some((m) => m.startsWith('end'))); i++) {
        if (i === 20) throw new Error('no later message reached both instances');
        await d.publishAsync(`${prefix}/end/telemetry`, `end${i}`, { qos: 1 });
        await waitFor(() => received.some((r) => r.includes(`end${i}`)), `later message ${i}`);
      }
      const delivered = received.flat().filter((m) => !m.startsWith('end'));
      expect(delivered.sort()).toEqual([...Array(40).keys()].map((i) => `m${i}`).sort());
      expect(received[0]!.length).toBeGreaterThan(0);
      expect(received[1]!.length).toBeGreaterThan(0);
      await Promise.all(instances.map((p) => p.close()));
    });

  // The external broker keeps what the platform has not acknowledged; the embedded one answers the device itself (below).
  if (adapter.external)
    it('acknowledges a QoS 1 message only once handled: a platform gone before that gets it again when it is back', async () => {
      const prefix = `t/${randomUUID()}`;
      const group = `platform-${randomUUID()}`;
      const clientId = `ingest-${randomUUID()}`;
      const seen: string[] = [];
      const first = await connectExternalMqtt({ url: deviceUrl, group, clientId, persistentSession: true, closeTimeoutMs: 100 });
      // Handles m0, and hangs in m1 as a process would that dies before its insert.
      await first.onMessage(`${prefix}/+/telemetry`, (m) => {
        seen.push(m.payload.toString());
        return m.payload.toString() === 'm1' ? new Promise<void>(() => {}) : undefined;
      });
      const d = await device(deviceUrl);
      await d.publishAsync(`${prefix}/d1/telemetry`, 'm0', { qos: 1 });
      await d.publishAsync(`${prefix}/d1/telemetry`, 'm1', { qos: 1 });
      await waitFor(() => seen.length === 2, 'both messages at the first instance');
      await first.close();
      await d.publishAsync(`${prefix}/d1/telemetry`, 'm2', { qos: 1 });

      const again: string[] = [];
      const second = await connectExternalMqtt({ url: deviceUrl, group, clientId, persistentSession: true });
      await second.onMessage(`${prefix}/+/telemetry`, (m) => void again.push(m.payload.toString()));
      // A message sent now comes after whatever the broker still had to deliver again.
      await d.publishAsync(`${prefix}/d1/telemetry`, 'm3', { qos: 1 });
      await waitFor(() => again.includes('m3'), 'a message sent after the restart');
      expect(again).toEqual(['m1', 'm2', 'm3']);
      await second.close();
    });

  it('reports unhealthy once closed', async () => {
    await close?.();
    close = undefined;
    expect((await sut.health()).ok).toBe(false);
  });
});

describe.each([
  { version: 4 as const, refused: /Bad username or password/, subscribeRefused: 128 },
  { version: 5 as const, refused: /Bad User Name or Password/, subscribeRefused: 135 },
])('embedded aedes: auth hooks and shutdown, MQTT protocol level $version', ({ version, refused, subscribeRefused }) => {
  let sut: EmbeddedMqtt;
  const handled: MqttMessage[] = [];
  const device = (url: string, options: IClientOptions = {}) => connectDevice(url, { protocolVersion: version, ...options });

  beforeAll(async () => {
    sut = await startEmbeddedMqtt({
      port: 0,
      host: '127.0.0.1',
      authenticate: (client, password) => client.username === 'meter-1' && password?.toString() === 'secret',
      authorizePublish: (client, topic) => topic.startsWith(`device/${client.username}/`),
      authorizeSubscribe: (client, filter) => filter.startsWith(`device/${client.username}/`),
    });
    await sut.onMessage('device/#', (m) => {
      handled.push(m);
      // The platform does not take what it does not know: acknowledged, kept as a dead letter, the device stays.
      if (m.topic.endsWith('/unknown')) return { refused: 'topic' };
      if (m.payload.toString() === 'not json') return { refused: 'payload' };
      return undefined;
    });
  });
  afterAll(async () => sut?.close());
  afterEach(() => void handled.splice(0));

  it('accepts a device with the right password', async () => {
    const d = await device(sut.url, {
      username: 'meter-1',
      password: 'secret',
    });
    expect(d.connected).toBe(true);
  });

  it('rejects a device with a bad password', async () => {
    await expect(device(sut.url, { username: 'meter-1', password: 'wrong' })).rejects.toThrow(refused);
    await expect(device(sut.url, {})).rejects.toThrow(refused);
  });

  it('refuses a publish outside the device’s topics and disconnects it', async () => {
    const d = await device(sut.url, {
      username: 'meter-1',
      password: 'secret',
    });
    const closed = new Promise<void>((resolve) => d.once('close', () => resolve()));
    const disconnects: number[] = [];
    d.on('disconnect', (packet) => disconnects.push(packet.reasonCode ?? -1));
    await d.publishAsync('device/meter-1/telemetry', 'mine', { qos: 0 });
    d.publish('device/meter-2/telemetry', 'not mine', { qos: 0 });
    await closed;
    // Another session's message handled after it: the refused one, had it got through, was handled first.
    const other = await device(sut.url, { username: 'meter-1', password: 'secret' });
    await other.publishAsync('device/meter-1/telemetry', 'later', { qos: 1 });
    await waitFor(() => handled.length >= 2, 'the later message');
    expect(handled.map((m) => m.payload.toString())).toEqual(['mine', 'later']);
    expect(handled[0]!.clientId).toBe(d.options.clientId);
    // An MQTT 5 server says why it closes: not authorized (3.1.1 has no server DISCONNECT).
    expect(disconnects).toEqual(version === 5 ? [0x87] : []);
  });

  it('refuses a subscription outside the device’s topics and keeps the device connected', async () => {
    const d = await device(sut.url, {
      username: 'meter-1',
      password: 'secret',
    });
    const granted = await new Promise<number[]>((resolve, reject) =>
      d.subscribe('device/meter-2/command', { qos: 1 }, (error, grants) =>
        // MQTT.js fails a 3.1.1 refusal and reports an MQTT 5 one in the grant.
        error ? resolve([subscribeRefused]) : grants ? resolve(grants.map((g) => g.qos)) : reject(new Error('no grant')),
      ),
    );
    expect(granted).toEqual([subscribeRefused]);
    expect(d.connected).toBe(true);
    expect(await d.subscribeAsync('device/meter-1/command', { qos: 1 })).toMatchObject([{ topic: 'device/meter-1/command', qos: 1 }]);
  });

  it('acknowledges a message the platform refuses and keeps the device connected, telling an MQTT 5 device why', async () => {
    const d = await device(sut.url, { username: 'meter-1', password: 'secret' });
    const outcome = (topic: string, payload: string) =>
      d.publishAsync(topic, payload, { qos: 1 }).then(
        () => 0,
        (error: { code?: number }) => error.code ?? -1,
      );

    expect(await outcome('device/meter-1/unknown', '{}')).toBe(version === 5 ? 0x90 : 0);
    expect(await outcome('device/meter-1/telemetry', 'not json')).toBe(version === 5 ? 0x99 : 0);
    expect(await outcome('device/meter-1/telemetry', '{"t":1}')).toBe(0);

    expect(d.connected).toBe(true);
    expect(handled.map((m) => m.payload.toString())).toEqual(['{}', 'not json', '{"t":1}']);
  });

  it('closes cleanly: devices are disconnected and the port is free again', async () => {
    const port = await freePort();
    const broker = await startEmbeddedMqtt({ port, host: '127.0.0.1' });
    const d = await device(broker.url);
    const closed = new Promise<void>((resolve) => d.once('close', () => resolve()));
    const disconnects: number[] = [];
    d.on('disconnect', (packet) => disconnects.push(packet.reasonCode ?? -1));

    await broker.close();

    await closed;
    expect(disconnects).toEqual(version === 5 ? [0x8b] : []);
    expect((await broker.health()).ok).toBe(false);
    const again = await startEmbeddedMqtt({ port, host: '127.0.0.1' });
    await again.close();
  });
});

describe.each([{ version: 4 as const }, { version: 5 as const }])(
  'embedded aedes: sessions and forwarding, MQTT protocol level $version',
  ({ version }) => {
    let sut: EmbeddedMqtt;
    const handled: MqttMessage[] = [];
    const device = (username: string, clientId: string) =>
      connectDevice(sut.url, { protocolVersion: version, username, password: 'secret', clientId });

    beforeAll(async () => {
      sut = await startEmbeddedMqtt({
        port: 0,
        host: '127.0.0.1',
        // Each device's client id is kept in its own namespace, as the platform's intake does.
        authenticate: (client, password) => password?.toString() === 'secret' && { clientId: `${client.username}/${client.clientId}` },
        authorizePublish: () => true,
        authorizeSubscribe: () => true,
      });
      await sut.onMessage('shared/#', (m) => void handled.push(m));
    });
    afterAll(async () => sut?.close());

    it('keeps two devices using one client id apart, each reached by its own id, and cuts one without the other', async () => {
      const first = await device('meter-1', 'same');
      const second = await device('meter-2', 'same');
      const got = { first: [] as string[], second: [] as string[] };
      first.on('message', (_t, p) => got.first.push(p.toString()));
      second.on('message', (_t, p) => got.second.push(p.toString()));
      expect(await sut.publishTo!('meter-1/same', 'shared/me', 'to one')).toBe(true);
      expect(await sut.publishTo!('meter-2/same', 'shared/me', 'to two')).toBe(true);
      await waitFor(() => got.first.length === 1 && got.second.length === 1, 'each device’s own downlink');
      expect(got).toEqual({ first: ['to one'], second: ['to two'] });

      const closed = new Promise<void>((resolve) => first.once('close', () => resolve()));
      expect(await sut.disconnect!('meter-1/same')).toBe(true);
      await closed;
      expect(await sut.disconnect!('meter-1/same')).toBe(false);
      expect(second.connected).toBe(true);
    });

    it('hands a device’s publish to the platform and to no subscriber, now or retained; the platform’s own reaches them', async () => {
      const listener = await device('meter-3', 'listener');
      const got: string[] = [];
      listener.on('message', (_t, p) => got.push(p.toString()));
      await listener.subscribeAsync('shared/topic', { qos: 1 });
      const talker = await device('meter-4', 'talker');
      await talker.publishAsync('shared/topic', 'from a device', { qos: 1, retain: true });
      await waitFor(() => handled.some((m) => m.payload.toString() === 'from a device'), 'the platform to have it');
      // After the device's message, the platform's: what reaches the listener, in order, is the platform's only.
      await sut.publish('shared/topic', 'from the platform', { qos: 1 });
      await waitFor(() => got.length > 0, 'the platform’s message');
      const late = await device('meter-5', 'late');
      const lateGot: string[] = [];
      late.on('message', (_t, p) => lateGot.push(p.toString()));
      await late.subscribeAsync('shared/topic', { qos: 1 });
      await sut.publish('shared/topic', 'again', { qos: 1 });
      await waitFor(() => lateGot.length > 0 && got.length > 1, 'the second platform message');
      expect(got).toEqual(['from the platform', 'again']);
      expect(lateGot).toEqual(['again']);
    });
  },
);

describe('embedded aedes: MQTT 5 clients', () => {
  let sut: EmbeddedMqtt;
  beforeAll(async () => {
    sut = await startEmbeddedMqtt({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => sut?.close());

  it('gives a client that sent no client id the one it is known by', async () => {
    const d = connect(sut.url, { protocolVersion: 5, clientId: '', clean: true, reconnectPeriod: 0 });
    devices.push(d);
    const connack = await new Promise<IConnackPacket>((resolve) => d.once('connect', resolve));
    expect(connack.reasonCode).toBe(0);
    expect(connack.properties?.assignedClientIdentifier).toMatch(/^aedes_/);
  });

  it('resolves the topic aliases a client sets', async () => {
    const prefix = `t/${randomUUID()}`;
    const received: string[] = [];
    await sut.onMessage(`${prefix}/#`, (m) => void received.push(`${m.topic} ${m.payload.toString()}`));
    const d = await connectDevice(sut.url, { protocolVersion: 5 });

    await d.publishAsync(`${prefix}/a`, 'first', { qos: 1, properties: { topicAlias: 1 } });
    await d.publishAsync('', 'second', { qos: 1, properties: { topicAlias: 1 } });

    expect(received).toEqual([`${prefix}/a first`, `${prefix}/a second`]);
  });

  it('answers a client asking for enhanced authentication that the method is not offered', async () => {
    await expect(connectDevice(sut.url, { protocolVersion: 5, properties: { authenticationMethod: 'SCRAM-SHA-1' } })).rejects.toThrow(
      /Bad authentication method/,
    );
  });

  it('takes 3.1 clients as before', async () => {
    const d = await connectDevice(sut.url, { protocolVersion: 3, protocolId: 'MQIsdp', clientId: 'old-meter' });
    expect(d.connected).toBe(true);
  });
});
