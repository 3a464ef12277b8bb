import mqtt, { type MqttClient } from 'mqtt';
import WebSocket from 'ws';
import { channels } from '@iot/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { ok } from '../harness/api.ts';
import { waitFor } from '../harness/process.ts';

/**
 * Commands to devices over real MQTT (embedded Aedes), issue 11: desired and reported state of writable
 * properties (set by an operator, re-sent at reconnect until reported), and ThingsBoard's server-side RPC to a
 * device that connected with its access token, and through a ThingsBoard gateway to its sub-device; pass-through
 * of raw bytes between an operator's websocket and a DTU-style device.
 */
let sut: TestPlatform;
let token: string;
let other: string;
let mqttUrl: string;
const devices: Record<string, { id: string; secret: string }> = {};
const clients: MqttClient[] = [];

/** Gone from the intake: the broker has seen the device disconnect. */
const offline = (id: string) => waitFor('the device offline', () => sut.platform.ingest!.intake.sessionOf(id) === null, 10_000);

/** A device as firmware runs it: connects, subscribes to its downlink, and keeps what it receives. */
async function connectDevice(username: string, password: string | undefined, filters: string[]) {
  const client = mqtt.connect(mqttUrl, { username, password, clientId: `c-${Math.random().toString(36).slice(2)}`, reconnectPeriod: 0 });
  clients.push(client);
  await new Promise((resolve, reject) => client.once('connect', resolve).once('error', reject));
  const got: Array<{ topic: string; body: any }> = [];
  client.on('message', (topic, payload) => got.push({ topic, body: JSON.parse(String(payload)) }));
  for (const filter of filters) await client.subscribeAsync(filter, { qos: 1 });
  return { client, got };
}
const desired = async (id: string) =>
  Object.fromEntries(ok(await sut.call('device.desired', { token, query: { id } })).map((d) => [d.identifier, d]));
const commandEvents = async (id: string) =>
  (
    await sut.db.pool.query<{ type: string; actor: string; data: any }>(
      `select type, metadata->'actor'->>'kind' as actor, data from es_events where stream_name = $1 and type in ('DeviceDesiredSet', 'DeviceCommandSent', 'DeviceCommandReplied', 'DeviceCommandFailed') order by global_position`,
      [`device-romeo.${id}`],
    )
  ).rows;

beforeAll(async () => {
  sut = await startTestPlatform();
  mqttUrl = (sut.platform.mqtt as unknown as { url: string }).url;
  await sut.seedTenant({ id: 'romeo', name: 'romeoCo', adminUsername: 'romeoAdmin', adminPassword: 'Romeo#pw1' });
  await sut.seedTenant({ id: 'sierra', name: 'sierraCo', adminUsername: 'sierraAdmin', adminPassword: 'Sierra#pw1' });
  token = await sut.login('romeoAdmin', 'Romeo#pw1');
  other = await sut.login('sierraAdmin', 'Sierra#pw1');
  const product = async (code: string, type: string) => {
    const id = ok(await sut.call('product.create', { token, body: { name: code, code, type } })).id;
    for (const fn of [
      { type: 'property', name: 'setpoint', identifier: 'setpoint', access: 'rw', dataType: { type: 'float', min: 0, max: 100 } },
      { type: 'property', name: 'mode', identifier: 'mode', access: 'rw', dataType: { type: 'int', min: 0, max: 3 } },
      { type: 'property', name: 'temperature', identifier: 'temperature', dataType: { type: 'float' } },
      {
        type: 'service',
        name: 'toggle',
        identifier: 'toggle',
        invoke: 'sync',
        timeoutMs: 2000,
        inputs: [{ identifier: 'pin', name: 'pin', dataType: { type: 'int', min: 0, max: 16 } }],
      },
    ])
      ok(await sut.call('product.defineFunction', { token, body: { productId: id, function: fn } }));
    ok(await sut.call('product.publish', { token, body: { id } }));
    return id;
  };
  const direct = await product('VALVE', 'direct');
  const gateway = await product('TB-GW', 'gateway');
  const sub = await product('TB-SUB', 'subDevice');
  for (const [sn, productId] of [
    ['VALVE-1', direct],
    ['VALVE-TB', direct],
    ['DTU-1', direct],
    ['TB-GW-1', gateway],
    ['GW-N-1', gateway],
  ] as const) {
    const d = ok(await sut.call('device.create', { token, body: { sn, name: sn, productId } }));
    devices[sn] = { id: d.id, secret: d.secret };
  }
  await sut.platform.runner.catchUp();
  const s = ok(
    await sut.call('device.create', {
      token,
      body: { sn: 'TB-SUB-1', name: 'Meter A', productId: sub, gatewayId: devices['TB-GW-1']!.id },
    }),
  );
  devices['TB-SUB-1'] = { id: s.id, secret: s.secret };
  const n = ok(
    await sut.call('device.create', {
      token,
      body: { sn: 'SUB-N-1', name: 'meter n', productId: sub, gatewayId: devices['GW-N-1']!.id },
    }),
  );
  devices['SUB-N-1'] = { id: n.id, secret: n.secret };
  await sut.platform.runner.catchUp();
}, 120_000);
afterAll(async () => {
  for (const c of clients) c.end(true);
  await sut?.stop();
});

describe('desired and reported state', () => {
  it('sends a desired value at once, shows the difference until reported, and re-sends what is not reported at reconnect', async () => {
    const { id, secret } = devices['VALVE-1']!;
    const setDesired = (value: unknown) => sut.call('device.setDesired', { token, body: { id, identifier: 'setpoint', value } });
    // Only writable properties, with values their type allows.
    expect((await sut.call('device.setDesired', { token, body: { id, identifier: 'temperature', value: 1 } })).json!.data.error).toBe(
      'COMMAND_INVALID',
    );
    expect((await setDesired(500)).json!.data.error).toBe('COMMAND_INVALID');

    const first = await connectDevice('VALVE-1', secret, ['devices/VALVE-1/command/+']);
    expect(ok(await setDesired(42)).status).toBe('sent');
    await waitFor('the desired value at the device', () => first.got.length >= 1, 10_000);
    expect(first.got[0]).toMatchObject({
      topic: expect.stringMatching(/^devices\/VALVE-1\/command\//),
      body: { kind: 'property', identifier: 'setpoint', params: { value: 42 } },
    });
    expect(await desired(id)).toMatchObject({ setpoint: { desired: 42, reported: null, inSync: false, actorName: 'romeoAdmin' } });

    // Offline: the desired value is recorded, and goes out when the device is back and subscribed.
    first.client.end(true);
    await offline(id);
    expect(ok(await setDesired(55.5))).toEqual({ messageId: null, status: 'offline' });
    const second = await connectDevice('VALVE-1', secret, ['devices/VALVE-1/command/+']);
    await waitFor('the desired value re-sent', () => second.got.length >= 1, 10_000);
    expect(second.got.map((m) => m.body.params)).toEqual([{ value: 55.5 }]);

    // The device applies it and reports: in sync, and a later reconnect sends nothing.
    await second.client.publishAsync('devices/VALVE-1/telemetry', JSON.stringify({ setpoint: 55.5, temperature: 20 }), { qos: 1 });
    expect(await desired(id)).toMatchObject({ setpoint: { desired: 55.5, reported: 55.5, inSync: true } });
    second.client.end(true);
    await offline(id);
    // Offline again, the mode is set: re-sent at the next reconnect after the setpoint, had that one still been due.
    expect(ok(await sut.call('device.setDesired', { token, body: { id, identifier: 'mode', value: 2 } }))).toEqual({
      messageId: null,
      status: 'offline',
    });
    const third = await connectDevice('VALVE-1', secret, ['devices/VALVE-1/command/+']);
    await waitFor('the mode re-sent', () => third.got.length >= 1, 10_000);
    expect(third.got.map((m) => [m.body.identifier, m.body.params])).toEqual([['mode', { value: 2 }]]);
    third.client.end(true);

    const events = await commandEvents(id);
    expect(events.map((e) => [e.type, e.actor])).toEqual([
      ['DeviceDesiredSet', 'user'],
      ['DeviceCommandSent', 'user'],
      ['DeviceDesiredSet', 'user'],
      ['DeviceCommandSent', 'system'],
      ['DeviceDesiredSet', 'user'],
      ['DeviceCommandSent', 'system'],
    ]);
    expect(events.map((e) => e.data.value ?? e.data.params?.value)).toEqual([42, 42, 55.5, 55.5, 2, 2]);
  });
});

describe('ThingsBoard RPC downlink', () => {
  it('sends a service as a server-side RPC to the token device only, and correlates its response', async () => {
    const { id, secret } = devices['VALVE-TB']!;
    // Another ThingsBoard device on the same broker subscribes to the same `me` topics: it must receive nothing.
    const bystander = await connectDevice('VALVE-1', devices['VALVE-1']!.secret, ['v1/devices/me/rpc/request/+']);
    const tb = await connectDevice(secret, undefined, ['v1/devices/me/rpc/request/+', 'v1/devices/me/attributes']);
    tb.client.on('message', (topic, payload) => {
      const requestId = /^v1\/devices\/me\/rpc\/request\/(\d+)$/.exec(topic)?.[1];
      const { method, params } = JSON.parse(String(payload)) as { method: string; params: { pin: number } };
      if (requestId && params.pin === 3)
        void tb.client.publishAsync(`v1/devices/me/rpc/response/${requestId}`, JSON.stringify({ method, gpio: params.pin, value: true }), {
          qos: 1,
        });
    });
    const command = (params: Record<string, unknown>, mode?: 'sync' | 'async') =>
      sut.call('device.command', {
        token,
        body: { id, kind: 'service', identifier: 'toggle', params, ...(mode ? { mode } : {}) },
      });
    expect(ok(await command({ pin: 3 }))).toMatchObject({ status: 'replied', output: { method: 'toggle', gpio: 3, value: true } });
    expect(tb.got[0]!.topic).toMatch(/^v1\/devices\/me\/rpc\/request\/\d+$/);
    expect(tb.got[0]!.body).toEqual({ method: 'toggle', params: { pin: 3 } });
    // A property set reaches ThingsBoard firmware as a shared-attribute update.
    ok(
      await sut.call('device.command', {
        token,
        body: { id, kind: 'property', identifier: 'setpoint', params: { value: 7 } },
      }),
    );
    await waitFor('the attribute update', () => tb.got.length >= 2, 10_000);
    expect(tb.got[1]).toEqual({ topic: 'v1/devices/me/attributes', body: { setpoint: 7 } });
    // Asynchronous: the later response is recorded as the reply all the same.
    expect(ok(await command({ pin: 3 }, 'async')).status).toBe('sent');
    const events = await waitFor(
      'both replies recorded',
      async () => {
        const all = await commandEvents(id);
        return all.filter((x) => x.type === 'DeviceCommandReplied').length === 2 && all;
      },
      10_000,
    );
    expect(events.filter((e) => e.type === 'DeviceCommandReplied').map((e) => e.actor)).toEqual(['user', 'device']);
    expect(bystander.got).toEqual([]);
  });

  it('sends RPC to a sub-device through its ThingsBoard gateway (v1/gateway/rpc) and correlates the answer', async () => {
    const gw = await connectDevice(devices['TB-GW-1']!.secret, undefined, ['v1/gateway/rpc']);
    gw.client.on('message', (topic, payload) => {
      const { device, data } = JSON.parse(String(payload)) as { device: string; data: { id: number; method: string; params: unknown } };
      if (topic === 'v1/gateway/rpc')
        void gw.client.publishAsync(
          'v1/gateway/rpc',
          JSON.stringify({ device, id: data.id, data: { success: true, method: data.method } }),
          { qos: 1 },
        );
    });
    const r = ok(
      await sut.call('device.command', {
        token,
        body: { id: devices['TB-SUB-1']!.id, kind: 'service', identifier: 'toggle', params: { pin: 1 } },
      }),
    );
    expect(r).toMatchObject({ status: 'replied', output: { success: true, method: 'toggle' } });
    expect(gw.got[0]!.body).toEqual({ device: 'Meter A', data: { id: expect.any(Number), method: 'toggle', params: { pin: 1 } } });
  });
});

describe('commands through a gateway', () => {
  it('sends a command for a sub-device on its gateway downlink and takes the reply the gateway relays', async () => {
    const gw = await connectDevice('GW-N-1', devices['GW-N-1']!.secret, ['gateways/GW-N-1/command/+']);
    gw.client.on('message', (topic, payload) => {
      const { messageId, sn, params } = JSON.parse(String(payload)) as { messageId: string; sn: string; params: { pin: number } };
      void gw.client.publishAsync(`gateways/GW-N-1/reply/${messageId}`, JSON.stringify({ sn, output: { toggled: params.pin } }), {
        qos: 1,
      });
    });
    const r = ok(
      await sut.call('device.command', {
        token,
        body: { id: devices['SUB-N-1']!.id, kind: 'service', identifier: 'toggle', params: { pin: 5 } },
      }),
    );
    expect(r).toMatchObject({ status: 'replied', output: { toggled: 5 } });
    expect(gw.got[0]!.topic).toMatch(/^gateways\/GW-N-1\/command\//);
    expect(gw.got[0]!.body).toMatchObject({ sn: 'SUB-N-1', kind: 'service', identifier: 'toggle', params: { pin: 5 } });
  });

  it("re-sends a sub-device's desired value through its gateway when the gateway reconnects", async () => {
    const sub = devices['SUB-N-1']!.id;
    const gateway = devices['GW-N-1']!.id;
    for (const c of clients) c.end(true);
    await offline(gateway);
    expect(ok(await sut.call('device.setDesired', { token, body: { id: sub, identifier: 'setpoint', value: 12 } })).status).toBe('offline');
    const gw = await connectDevice('GW-N-1', devices['GW-N-1']!.secret, ['gateways/GW-N-1/command/+']);
    await waitFor('the desired value through the gateway', () => gw.got.length >= 1, 10_000);
    expect(gw.got[0]!.body).toMatchObject({ sn: 'SUB-N-1', kind: 'property', identifier: 'setpoint', params: { value: 12 } });
  });
});

describe('pass-through', () => {
  it("relays an operator's bytes to a DTU-style device and its answer back, says in progress or failed, and lets no other tenant in", async () => {
    const { id, secret } = devices['DTU-1']!;
    const url = `${sut.platform.url!.replace('http', 'ws').replace('localhost', '127.0.0.1')}${channels['device.passthrough'].path}`;
    const open = async (as: string) => {
      const socket = new WebSocket(`${url}?deviceIds=${id}`, { headers: { authentication: as } });
      const got: any[] = [];
      socket.on('message', (data) => got.push(JSON.parse(String(data))));
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      return { socket, got };
    };
    const operator = await open(token);
    const stranger = await open(other);
    const modbus = Buffer.from([0x01, 0x03, 0x00, 0x00, 0x00, 0x02, 0xc4, 0x0b]);
    // Not connected yet: failed at once.
    operator.socket.send(JSON.stringify({ deviceId: id, data: modbus.toString('base64') }));
    await waitFor('the relay failed', () => operator.got.length >= 1, 10_000);
    expect(operator.got[0]).toEqual({ type: 'state', deviceId: id, state: 'failed', reason: 'offline' });

    // The DTU answers every frame with a response frame of its own, raw bytes both ways.
    const dtu = mqtt.connect(mqttUrl, { username: 'DTU-1', password: secret, clientId: 'dtu-1', reconnectPeriod: 0 });
    clients.push(dtu);
    await new Promise((resolve, reject) => dtu.once('connect', resolve).once('error', reject));
    const frames: Buffer[] = [];
    dtu.on('message', (_topic, payload) => {
      frames.push(payload);
      void dtu.publishAsync('devices/DTU-1/passthrough/up', Buffer.from([0x01, 0x03, 0x04, 0x00, 0x2a, 0x00, 0x00, 0xfe, 0xff]), {
        qos: 1,
      });
    });
    await dtu.subscribeAsync('devices/DTU-1/passthrough/down', { qos: 1 });
    operator.socket.send(JSON.stringify({ deviceId: id, data: modbus.toString('base64') }));
    const got = await waitFor('the answer relayed', () => operator.got.some((m) => m.type === 'data') && operator.got, 10_000);
    expect(frames).toEqual([modbus]);
    expect(got.find((m) => m.type === 'state' && m.state === 'inProgress')).toBeDefined();
    expect(Buffer.from(got.find((m) => m.type === 'data').data, 'base64')).toEqual(
      Buffer.from([0x01, 0x03, 0x04, 0x00, 0x2a, 0x00, 0x00, 0xfe, 0xff]),
    );

    // Another tenant can neither send to the device nor read what it sends.
    stranger.socket.send(JSON.stringify({ deviceId: id, data: modbus.toString('base64') }));
    await waitFor("the stranger's relay failed", () => stranger.got.length >= 1, 10_000);
    expect(stranger.got).toEqual([{ type: 'state', deviceId: id, state: 'failed', reason: 'offline' }]);
    expect(frames).toHaveLength(1);

    // The device drops: the relay in progress fails.
    dtu.end(true);
    const after = await waitFor(
      'the relay failed on disconnect',
      () => operator.got.some((m) => m.reason === 'device disconnected') && operator.got,
      10_000,
    );
    expect(after.at(-1)).toEqual({ type: 'state', deviceId: id, state: 'failed', reason: 'device disconnected' });
    operator.socket.close();
    stranger.socket.close();
  });
});
