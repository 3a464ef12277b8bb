import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { ok, refusal, malformed, type BodyOf } from '../harness/api.ts';
import { startMosquitto, type MosquittoHandle } from '../harness/mosquitto.ts';
import { freePort } from '../harness/free-port.ts';
import { waitFor } from '../harness/process.ts';

/**
 * Forwarding (issue 19): MQTT and HTTP servers with the spec's validation and messages, connection tests, and rules
 * that deliver every message at least once, in order per device, to a local HTTP server that fails the first
 * attempts and to a real Mosquitto; what fails every retry is a dead letter, sent again from the screen.
 */
let sut: TestPlatform;
let token: string;
let productId: string;
const devices: Record<string, { id: string; secret: string }> = {};

/** An HTTP server on loopback (the one range the operator allows here): answers 503 while `failures` lasts, then takes the message. */
interface Sink {
  server: Server;
  url: string;
  failures: number;
  received: { deviceId: string; values: { temperature: number } }[];
  requests: number;
}
async function sink(port = 0, failures = 0): Promise<Sink> {
  const s: Sink = { server: createServer(), url: '', failures, received: [], requests: 0 };
  s.server.on('request', (req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      s.requests++;
      if (s.failures > 0) {
        s.failures--;
        res.writeHead(503).end('busy');
        return;
      }
      const message = JSON.parse(body) as { deviceId?: string; values: { temperature: number } };
      if (message.deviceId) s.received.push({ deviceId: message.deviceId, values: message.values });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => s.server.listen(port, '127.0.0.1', resolve));
  s.url = `http://127.0.0.1:${(s.server.address() as AddressInfo).port}/ingest`;
  return s;
}
const closeSink = (s: Sink | undefined) => new Promise<void>((resolve) => (s ? s.server.close(() => resolve()) : resolve()));

let retrying: Sink;
let revived: Sink | undefined;
let mosquitto: MosquittoHandle;

async function report(sn: string, temperature: number, ts: number) {
  const r = await sut.call('telemetry.report', { body: { sn, secret: devices[sn]!.secret, data: { ts, values: { temperature } } } });
  expect(r.status, r.body).toBe(200);
}
/** A rule saved, and known to the reactor on the telemetry once the log has handed it over. */
async function rule(body: BodyOf<'forwardConfig.create'>) {
  const { id } = ok(await sut.call('forwardConfig.create', { token, body }));
  await sut.platform.runner.catchUp();
  return id;
}

beforeAll(async () => {
  retrying = await sink(0, 2);
  mosquitto = await startMosquitto();
  sut = await startTestPlatform({ OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32', FORWARD_RETRY_MS: '20', FORWARD_MAX_ATTEMPTS: '4' });
  await sut.seedTenant({ id: 'fwd', name: 'fwdCo', adminUsername: 'fwdAdmin', adminPassword: 'Fwd#pw123' });
  token = await sut.login('fwdAdmin', 'Fwd#pw123');
  productId = ok(await sut.call('product.create', { token, body: { name: 'Meter', code: 'FWDM', type: 'direct' } })).id;
  ok(
    await sut.call('product.defineFunction', {
      token,
      body: { productId, function: { type: 'property', name: 't', identifier: 'temperature', dataType: { type: 'float' }, access: 'r' } },
    }),
  );
  ok(await sut.call('product.publish', { token, body: { id: productId } }));
  for (const sn of ['FWD-1', 'FWD-2', 'FWD-3', 'FWD-4']) {
    const created = ok(await sut.call('device.create', { token, body: { sn, name: sn, productId } }));
    devices[sn] = { id: created.id, secret: created.secret! };
  }
}, 180_000);
afterAll(async () => {
  await sut?.stop();
  await closeSink(retrying);
  await closeSink(revived);
  await mosquitto?.stop();
});

describe('forwarding servers', () => {
  const mqtt = { name: 'Plant broker', ip: '52.10.20.30', port: 1883, username: 'plant', password: 'Plant#pw1' };

  it('takes an MQTT server with an IPv4 address and a port up to 65535; answers whether a password is set, never the password', async () => {
    const { id } = ok(await sut.call('forwardServer.createMqtt', { token, body: mqtt }));
    const listed = ok(await sut.call('forwardServer.listMqtt', { token })).rows;
    expect(listed).toEqual([expect.objectContaining({ id, name: 'Plant broker', ip: '52.10.20.30', port: 1883, hasPassword: true })]);
    expect(JSON.stringify(listed)).not.toContain('Plant#pw1');
    for (const body of [
      { ...mqtt, ip: '300.1.1.1' },
      { ...mqtt, port: 65536 },
      { name: 'no port', ip: '52.10.20.30' },
    ])
      expect(refusal(await sut.call('forwardServer.createMqtt', { token, body: malformed(body) }))).toBe('VALIDATION');
    ok(await sut.call('forwardServer.updateMqtt', { token, body: { ...mqtt, id, password: null } }));
    expect(ok(await sut.call('forwardServer.listMqtt', { token })).rows[0]!.hasPassword).toBe(false);
  });

  it("answers the spec's messages: MQTT add failed, MQTT edit failed, Local port should not be in use", async () => {
    const en = { lang: 'en' };
    const taken = await sut.call('forwardServer.createMqtt', { token, body: { ...mqtt, ip: '52.10.20.31' }, headers: en });
    expect([refusal(taken), taken.json!.msg]).toEqual(['MQTT_ADD_FAILED', 'MQTT add failed: the name is already in use']);
    const { id } = ok(await sut.call('forwardServer.createMqtt', { token, body: { ...mqtt, name: 'Second' } }));
    const edited = await sut.call('forwardServer.updateMqtt', { token, body: { ...mqtt, id }, headers: en });
    expect([refusal(edited), edited.json!.msg]).toEqual(['MQTT_EDIT_FAILED', 'MQTT edit failed: the name is already in use']);
    // The platform's own broker: forwarding there would loop.
    const own = { ...mqtt, name: 'Loop', ip: '127.0.0.1', port: sut.platform.context.config.MQTT_PORT };
    const local = await sut.call('forwardServer.createMqtt', { token, body: own, headers: en });
    expect([refusal(local), local.json!.msg]).toEqual(['LOCAL_PORT_IN_USE', 'Local port should not be in use']);
    const zh = await sut.call('forwardServer.createMqtt', { token, body: own });
    expect(zh.json!.msg).toBe('本地端口不能被占用');
    // An internal address the operator did not allow.
    expect(refusal(await sut.call('forwardServer.createMqtt', { token, body: { ...mqtt, name: 'Inside', ip: '10.0.0.8' } }))).toBe(
      'OUTBOUND_URL_REFUSED',
    );
    ok(await sut.call('forwardServer.deleteMqtt', { token, query: { ids: id } }));
  });

  it('tests an HTTP server through the outbound guard, and an MQTT server by logging in to it', async () => {
    const { id: httpId } = ok(await sut.call('forwardServer.createHttp', { token, body: { name: 'Sink', url: retrying.url } }));
    expect(ok(await sut.call('forwardServer.listHttp', { token })).rows[0]).toMatchObject({ ip: '127.0.0.1', url: retrying.url });
    // The sink fails the first two calls: the test shows the class of the failure, then success.
    expect(ok(await sut.call('forwardServer.testHttp', { token, body: { id: httpId } }))).toMatchObject({
      ok: false,
      error: 'HTTP_STATUS_5XX',
    });
    ok(await sut.call('forwardServer.testHttp', { token, body: { id: httpId } }));
    expect(ok(await sut.call('forwardServer.testHttp', { token, body: { id: httpId } }))).toMatchObject({ ok: true, error: null });
    const port = Number(new URL(mosquitto.url).port);
    const { id: mqttId } = ok(await sut.call('forwardServer.createMqtt', { token, body: { name: 'Mosquitto', ip: '127.0.0.1', port } }));
    expect(ok(await sut.call('forwardServer.testMqtt', { token, body: { id: mqttId } }))).toMatchObject({ ok: true, error: null });
    const closed = await freePort();
    const { id: closedId } = ok(
      await sut.call('forwardServer.createMqtt', { token, body: { name: 'Closed', ip: '127.0.0.1', port: closed } }),
    );
    expect(ok(await sut.call('forwardServer.testMqtt', { token, body: { id: closedId } }))).toMatchObject({
      ok: false,
      error: 'CONNECT_FAILED',
    });
  });
});

describe('forwarding rules', () => {
  it('delivers every message once, in order per device, to an HTTP server that fails the first attempts', async () => {
    const serverId = ok(await sut.call('forwardServer.listHttp', { token, query: { name: 'Sink' } })).rows[0]!.id;
    retrying.failures = 3;
    await rule({
      name: 'To the sink',
      productIds: [productId],
      deviceIds: [devices['FWD-1']!.id, devices['FWD-2']!.id],
      messageTypes: ['telemetry'],
      serverId,
    });
    const start = Date.now() - 60_000;
    for (let i = 0; i < 5; i++) for (const sn of ['FWD-1', 'FWD-2']) await report(sn, i, start + i * 1000);
    await waitFor('ten messages delivered', () => retrying.received.length >= 10, 15_000);
    await sut.platform.forward.delivery!.drain();
    expect(retrying.failures).toBe(0);
    for (const sn of ['FWD-1', 'FWD-2'])
      expect(retrying.received.filter((m) => m.deviceId === devices[sn]!.id).map((m) => m.values.temperature)).toEqual([0, 1, 2, 3, 4]);
    expect(retrying.received).toHaveLength(10);
    // A server a rule sends to is not deleted.
    const refused = ok(await sut.call('forwardServer.deleteHttp', { token, query: { ids: serverId } }));
    expect(refused.results[0]).toMatchObject({ ok: false, code: 'SERVER_IN_USE' });
  });

  it('keeps what fails every retry as dead letters, and sends them again, in order, from the screen', async () => {
    const port = await freePort();
    const { id: serverId } = ok(
      await sut.call('forwardServer.createHttp', { token, body: { name: 'Later', url: `http://127.0.0.1:${port}/ingest` } }),
    );
    const ruleId = await rule({
      name: 'Later',
      productIds: [productId],
      deviceIds: [devices['FWD-3']!.id],
      messageTypes: ['telemetry'],
      serverId,
    });
    const start = Date.now() - 30_000;
    for (let i = 0; i < 3; i++) await report('FWD-3', i, start + i * 1000);
    const dead = await waitFor('three dead letters', async () => {
      const rows = ok(await sut.call('forwardConfig.dead', { token, query: { ruleId, sort: 'createTime', order: 'asc' } })).rows;
      return rows.length === 3 ? rows : null;
    });
    expect(dead.map((d) => [d.attempts, d.error])).toEqual([
      [4, 'CONNECT_FAILED'],
      [4, 'CONNECT_FAILED'],
      [4, 'CONNECT_FAILED'],
    ]);
    revived = await sink(port);
    expect(ok(await sut.call('forwardConfig.retry', { token, body: { ids: dead.map((d) => d.id) } })).updated).toBe(3);
    await waitFor('the dead letters delivered', () => revived!.received.length >= 3);
    expect(revived.received.map((m) => m.values.temperature)).toEqual([0, 1, 2]);
    expect(ok(await sut.call('forwardConfig.dead', { token, query: { ruleId } })).total).toBe(0);
    expect(refusal(await sut.call('forwardConfig.retry', { token, body: { ids: dead.map((d) => d.id) } }))).toBe('NOT_FOUND');
  });

  it('deletes dead letters, one and then the selected; a deleted one is gone for a second try', async () => {
    const { id: serverId } = ok(
      await sut.call('forwardServer.createHttp', { token, body: { name: 'Gone', url: `http://127.0.0.1:${await freePort()}/ingest` } }),
    );
    const ruleId = await rule({
      name: 'Gone',
      productIds: [productId],
      deviceIds: [devices['FWD-3']!.id],
      messageTypes: ['telemetry'],
      serverId,
    });
    const start = Date.now() - 20_000;
    for (let i = 0; i < 3; i++) await report('FWD-3', 10 + i, start + i * 1000);
    const dead = await waitFor('three dead letters', async () => {
      const rows = ok(await sut.call('forwardConfig.dead', { token, query: { ruleId } })).rows;
      return rows.length === 3 ? rows : null;
    });
    expect(ok(await sut.call('forwardConfig.deleteDead', { token, query: { ids: dead[0]!.id } })).deleted).toBe(1);
    expect(ok(await sut.call('forwardConfig.dead', { token, query: { ruleId } })).rows.map((d) => d.id)).toEqual(
      dead.slice(1).map((d) => d.id),
    );
    const rest = dead.map((d) => d.id).join(',');
    expect(ok(await sut.call('forwardConfig.deleteDead', { token, query: { ids: rest } })).deleted).toBe(2);
    expect(ok(await sut.call('forwardConfig.dead', { token, query: { ruleId } })).total).toBe(0);
    expect(refusal(await sut.call('forwardConfig.deleteDead', { token, query: { ids: rest } }))).toBe('NOT_FOUND');
  });

  it('publishes to a real Mosquitto on the rule’s topic, in order, the payload as its template makes it', async () => {
    const serverId = ok(await sut.call('forwardServer.listMqtt', { token, query: { name: 'Mosquitto' } })).rows[0]!.id;
    const subscriber: MqttClient = await new Promise((resolve, reject) => {
      const client = connect(mosquitto.url, { reconnectPeriod: 0 });
      client.once('connect', () => resolve(client));
      client.once('error', reject);
    });
    const seen: { topic: string; payload: string }[] = [];
    subscriber.on('message', (topic, payload) => seen.push({ topic, payload: payload.toString() }));
    await subscriber.subscribeAsync('plant/#', { qos: 1 });
    await rule({
      name: 'To the plant',
      productIds: [productId],
      deviceIds: [devices['FWD-4']!.id],
      messageTypes: ['telemetry'],
      serverId,
      topic: 'plant/{{deviceId}}/up',
      payloadTemplate: '{"device":"{{deviceId}}","t":{{values}}}',
    });
    const start = Date.now() - 10_000;
    for (let i = 0; i < 4; i++) await report('FWD-4', i, start + i * 1000);
    await waitFor('four messages on Mosquitto', () => seen.length >= 4);
    expect(seen.map((m) => m.topic)).toEqual(Array(4).fill(`plant/${devices['FWD-4']!.id}/up`));
    expect(seen.map((m) => JSON.parse(m.payload))).toEqual(
      [0, 1, 2, 3].map((t) => ({ device: devices['FWD-4']!.id, t: { temperature: t } })),
    );
    await subscriber.endAsync();
  });
});
