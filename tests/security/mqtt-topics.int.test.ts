import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downlinkFilters, topicOf, topicTable } from '@iot/ingest';
import { waitFor } from '../harness/process.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * The MQTT topic walk (issue 24), on the embedded broker: every topic of the table in ingest/src/topics.ts (so a
 * new topic is walked as soon as it is there) against every other device: of the same tenant and of another,
 * gateways and direct devices, native and ThingsBoard sessions. Nothing a device publishes reaches another device
 * (nor is kept for a later subscriber), a device subscribes to no other device's topics, and what the platform
 * sends to a device reaches that device's session only (a sub-device's, its gateway's).
 */
let sut: TestPlatform;
let mqttUrl: string;
const clients: MqttClient[] = [];

interface Device {
  tenant: string;
  sn: string;
  id: string;
  secret: string;
  nodeType: 'direct' | 'gateway' | 'subDevice';
  /** How it connects: SN and secret, or its token as the username (ThingsBoard); a sub-device does not. */
  style: 'native' | 'thingsboard' | null;
  gateway?: string;
}
interface Session {
  device: Device;
  clientId: string;
  client: MqttClient;
  got: Array<{ topic: string; body: string }>;
}
const devices: Device[] = [];
const sessions: Session[] = [];

const ok = (r: { status: number; body: string; json: { data: any } | null }) => {
  expect(r.status, r.body).toBe(200);
  return r.json!.data;
};
const connect = async (device: Device, clientId = `walk-${device.sn}`): Promise<MqttClient> => {
  const client = await mqtt.connectAsync(mqttUrl, {
    ...(device.style === 'thingsboard' ? { username: device.secret } : { username: device.sn, password: device.secret }),
    clientId,
    reconnectPeriod: 0,
    connectTimeout: 5000,
  });
  clients.push(client);
  return client;
};
const closed = (client: MqttClient) => new Promise<'closed'>((resolve) => client.once('close', () => resolve('closed')));
/** A session listening to its whole downlink; `listen` again if a refused publish ended its connection. */
const listen = async (session: Session) => {
  session.client = await connect(session.device, session.clientId);
  session.client.on('message', (topic, payload) => session.got.push({ topic, body: payload.toString() }));
  for (const filter of downlinkFilters(session.device.sn, session.device.nodeType)) await session.client.subscribeAsync(filter, { qos: 1 });
};
const open = async (device: Device, clientId = `walk-${device.sn}`): Promise<Session> => {
  const session = { device, clientId, got: [] } as unknown as Session;
  await listen(session);
  sessions.push(session);
  return session;
};
/** Whether the broker grants a subscription (a refusal is failure code 0x80, which mqtt.js may also throw as an error). */
const granted = (client: MqttClient, filter: string) =>
  client.subscribeAsync(filter, { qos: 1 }).then(
    (g) => g.every((s) => s.qos < 128),
    () => false,
  );
/** The devices a session speaks for: its own, and a gateway's sub-devices. */
const spokenFor = (device: Device) => [device.sn, ...devices.filter((d) => d.gateway === device.sn).map((d) => d.sn)];

beforeAll(async () => {
  sut = await startTestPlatform();
  mqttUrl = (sut.platform.mqtt as unknown as { url: string }).url;
  for (const [tenant, name] of [
    ['romeo', 'romeoCo'],
    ['sierra', 'sierraCo'],
  ] as const) {
    const password = `${tenant[0]!.toUpperCase()}${tenant.slice(1)}#pw1`;
    await sut.seedTenant({ id: tenant, name, adminUsername: `${tenant}Admin`, adminPassword: password });
    const token = await sut.login(`${tenant}Admin`, password);
    const product = async (code: string, type: string) => {
      const id = ok(await sut.call('product.create', { token, body: { name: code, code, type } })).id as string;
      for (const fn of [
        { type: 'property', name: 'setpoint', identifier: 'setpoint', access: 'rw', dataType: { type: 'int', min: 0, max: 1000 } },
        { type: 'property', name: 'temperature', identifier: 'temperature', dataType: { type: 'float' } },
        {
          type: 'service',
          name: 'tag',
          identifier: 'tag',
          invoke: 'async',
          inputs: [{ identifier: 'to', name: 'to', dataType: { type: 'text', maxLength: 64 } }],
        },
      ])
        ok(await sut.call('product.defineFunction', { token, body: { productId: id, function: fn } }));
      ok(await sut.call('product.publish', { token, body: { id } }));
      return id;
    };
    const direct = await product('WALK-DIR', 'direct');
    const gateway = await product('WALK-GW', 'gateway');
    const sub = await product('WALK-SUB', 'subDevice');
    const prefix = tenant.slice(0, 1).toUpperCase();
    const make = async (sn: string, productId: string, nodeType: Device['nodeType'], style: Device['style'], gatewaySn?: string) => {
      const gatewayId = gatewaySn ? devices.find((d) => d.sn === gatewaySn)!.id : undefined;
      const d = ok(await sut.call('device.create', { token, body: { sn, name: `${sn}-name`, productId, gatewayId } }));
      devices.push({ tenant, sn, id: d.id, secret: d.secret, nodeType, style, gateway: gatewaySn });
      await sut.platform.runner.catchUp();
    };
    await make(`${prefix}-DIR`, direct, 'direct', 'native');
    await make(`${prefix}-TB`, direct, 'direct', 'thingsboard');
    await make(`${prefix}-GW`, gateway, 'gateway', 'native');
    await make(`${prefix}-TBGW`, gateway, 'gateway', 'thingsboard');
    await make(`${prefix}-GSUB`, sub, 'subDevice', null, `${prefix}-GW`);
    await make(`${prefix}-TSUB`, sub, 'subDevice', null, `${prefix}-TBGW`);
  }
  for (const device of devices) if (device.style) await open(device);
}, 180_000);
afterAll(async () => {
  for (const c of clients) c.end(true);
  await sut?.stop();
});

/** What a message a session got is addressed to: the SN of the `to` tag or of the unique setpoint value. */
const values = new Map<number, string>();
const addressees = (body: string): string[] => [
  ...[...body.matchAll(/to-([A-Z]-[A-Z]+)/g)].map((m) => m[1]!),
  ...[...body.matchAll(/"(?:setpoint|value)":(\d+)/g)].map((m) => values.get(Number(m[1])) ?? `unknown value ${m[1]}`),
];

describe('the MQTT topic table walked against every other device', () => {
  it('lets a device subscribe to no other device’s topics, nor a direct device to the gateway API, nor to wildcards', async () => {
    const wildcards = ['#', '+/#', 'devices/#', 'devices/+/command/+', 'gateways/#', 'v1/#', 'v1/gateway/#', '$SYS/#'];
    const granting: string[] = [];
    for (const session of sessions) {
      for (const other of devices.filter((d) => d !== session.device)) {
        for (const row of topicTable.filter((r) => r.direction === 'down' && r.names === 'device')) {
          const filter = topicOf(row, other.sn);
          if (await granted(session.client, filter)) granting.push(`${session.device.sn} ${filter}`);
        }
      }
      for (const filter of wildcards) if (await granted(session.client, filter)) granting.push(`${session.device.sn} ${filter}`);
      if (session.device.nodeType !== 'gateway')
        for (const row of topicTable.filter((r) => r.direction === 'down' && r.device === 'gateway'))
          if (await granted(session.client, topicOf(row, session.device.sn))) granting.push(`${session.device.sn} ${row.topic}`);
    }
    expect(granting).toEqual([]);
  });

  it('delivers nothing a device publishes, on any topic of the table, its own or another’s, to another device, now or later', async () => {
    let n = 0;
    /** Who published each marker. */
    const markers = new Map<string, string>();
    const payload = (from: Device) => {
      const marker = `published-${++n}-`;
      markers.set(marker, from.sn);
      return JSON.stringify({ temperature: 1, setpoint: 999, marker, device: 'R-GSUB', data: { setpoint: 999, marker } });
    };
    // Its own topics, and those that name no device, on the session that listens to its downlink (retained, too).
    // Each request carries an id no other session uses: an answer on another session's response topic is a stray.
    const asked = new Map<Session, Set<string>>();
    for (const session of sessions) {
      asked.set(session, new Set());
      for (const row of topicTable.filter((r) => r.direction === 'up')) {
        if (!session.client.connected) await listen(session);
        const topic = topicOf(row, session.device.sn, String(++n));
        if (topic.includes('/request')) asked.get(session)!.add(topic.replace('/request', '/response'));
        await Promise.race([session.client.publishAsync(topic, payload(session.device), { qos: 1, retain: true }), closed(session.client)]);
      }
    }
    // Every other device's topics, each attempt on a connection of its own (a refused publish ends it).
    for (const device of devices.filter((d) => d.style))
      for (const other of devices.filter((d) => d !== device))
        for (const row of topicTable.filter((r) => r.direction === 'up' && r.names === 'device')) {
          const client = await connect(device, `walk-foreign-${device.sn}`);
          await Promise.race([client.publishAsync(topicOf(row, other.sn, '1'), payload(device), { qos: 1, retain: true }), closed(client)]);
          client.end(true);
        }
    // Later sessions of every device subscribe after all that: retained messages would come now.
    for (const device of devices.filter((d) => d.style)) await open(device, `walk-late-${device.sn}`);

    // A positive signal that every session has been delivered all that was coming: a value sent to each device
    // after the publishes reaches its sessions (the newest one, which is the late one) in order behind anything else.
    let value = 0;
    for (const device of devices) {
      values.set(++value, device.sn);
      ok(
        await sut.call('device.command', {
          token: await sut.login(`${device.tenant}Admin`, `${device.tenant[0]!.toUpperCase()}${device.tenant.slice(1)}#pw1`),
          body: { id: device.id, kind: 'property', identifier: 'setpoint', params: { value } },
        }),
      );
    }
    const late = sessions.slice(-devices.filter((d) => d.style).length);
    await waitFor(
      'each late session’s value',
      async () => late.every((s) => s.got.some((m) => /"(setpoint|value)":\d+/.test(m.body))),
      10_000,
    );
    // What a session got of another device's messages, or answers to requests it did not make (ThingsBoard's
    // client-side RPC and attribute requests are answered to the asking session only).
    const strays = sessions.flatMap((s) =>
      s.got
        .filter(
          (m) =>
            [...markers].some(([marker, from]) => m.body.includes(marker) && from !== s.device.sn) ||
            (m.topic.includes('/response') && !asked.get(s)?.has(m.topic)),
        )
        .map((m) => `${s.device.sn} got ${m.topic} ${m.body}`),
    );
    expect(strays).toEqual([]);
  });

  it('sends what the platform sends to a device to that device’s session only, a sub-device’s to its gateway’s', async () => {
    const tokens = new Map<string, string>();
    for (const tenant of ['romeo', 'sierra'])
      tokens.set(tenant, await sut.login(`${tenant}Admin`, `${tenant[0]!.toUpperCase()}${tenant.slice(1)}#pw1`));
    for (const session of sessions) session.got.length = 0;
    let value = 500;
    for (const device of devices) {
      values.set(++value, device.sn);
      const token = tokens.get(device.tenant)!;
      for (const body of [
        { id: device.id, kind: 'property', identifier: 'setpoint', params: { value } },
        { id: device.id, kind: 'service', identifier: 'tag', params: { to: `to-${device.sn}` }, mode: 'async' },
      ])
        ok(await sut.call('device.command', { token, body }));
    }
    // Each device, through its newest session (or its gateway's), gets both.
    const newest = (sn: string) => sessions.filter((s) => spokenFor(s.device).includes(sn)).at(-1)!;
    await waitFor(
      'every device’s downlink',
      async () => devices.every((d) => newest(d.sn).got.filter((m) => addressees(m.body).includes(d.sn)).length === 2),
      10_000,
    );
    const strays = sessions.flatMap((s) =>
      s.got
        .filter((m) => addressees(m.body).some((sn) => !spokenFor(s.device).includes(sn)))
        .map((m) => `${s.device.sn} got ${m.topic} ${m.body}`),
    );
    expect(strays).toEqual([]);
  });
});
