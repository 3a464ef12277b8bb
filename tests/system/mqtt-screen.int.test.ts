import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../harness/api.ts';
import { waitFor } from '../harness/process.ts';
import { ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * System → MQTT (issue 19): the embedded broker with its connected clients by tenant, their subscriptions and the
 * messages they sent, and an administrator disconnecting one; a tenant's administrator sees and cuts only its own
 * tenant's clients, the platform administrator every tenant's.
 */
let sut: TestPlatform;
let mqttUrl: string;
let uniform: string;
let victor: string;
let admin: string;
const clients: MqttClient[] = [];

async function device(token: string, sn: string) {
  const productId = ok(await sut.call('product.create', { token, body: { name: `P-${sn}`, code: `P${sn}`, type: 'direct' } })).id;
  const temperature = { type: 'property', name: 'temperature', identifier: 'temperature', dataType: { type: 'float' } };
  ok(await sut.call('product.defineFunction', { token, body: { productId, function: temperature } }));
  ok(await sut.call('product.publish', { token, body: { id: productId } }));
  const d = ok(await sut.call('device.create', { token, body: { sn, name: `Meter ${sn}`, productId } }));
  return { id: d.id, secret: d.secret!, sn };
}

async function connect(sn: string, secret: string, clientId: string) {
  const client = mqtt.connect(mqttUrl, { username: sn, password: secret, clientId, reconnectPeriod: 0, connectTimeout: 5000 });
  clients.push(client);
  await new Promise((resolve, reject) => client.once('connect', resolve).once('error', reject));
  const session = { client, closed: false };
  client.on('close', () => (session.closed = true));
  await client.subscribeAsync(`devices/${sn}/command/+`, { qos: 1 });
  return session;
}

beforeAll(async () => {
  sut = await startTestPlatform();
  mqttUrl = (sut.platform.mqtt as unknown as { url: string }).url;
  await sut.seedTenant({ id: 'uniform', name: 'uniformCo', adminUsername: 'uniformAdmin', adminPassword: 'Uniform#pw1' });
  await sut.seedTenant({ id: 'victor', name: 'victorCo', adminUsername: 'victorAdmin', adminPassword: 'Victor#pw1' });
  uniform = await sut.login('uniformAdmin', 'Uniform#pw1');
  victor = await sut.login('victorAdmin', 'Victor#pw1');
  admin = await sut.login('admin', ADMIN_PASSWORD);
}, 120_000);
afterAll(async () => {
  for (const c of clients) c.end(true);
  await sut?.stop();
});

describe('the MQTT screen', () => {
  it('lists the connected clients of the caller’s tenant with subscriptions and messages, every tenant’s to the platform administrator', async () => {
    const mine = await device(uniform, 'MQ-U1');
    const theirs = await device(victor, 'MQ-V1');
    const own = await connect(mine.sn, mine.secret, 'u-meter');
    await connect(theirs.sn, theirs.secret, 'v-meter');
    for (let i = 0; i < 3; i++)
      await own.client.publishAsync(`devices/${mine.sn}/telemetry`, JSON.stringify({ temperature: 20 + i }), { qos: 1 });

    const seen = ok(await sut.call('mqttBroker.overview', { token: uniform }));
    expect(seen).toMatchObject({ mode: 'embedded', healthy: true, listsClients: true, address: mqttUrl });
    expect(seen.clients).toEqual([
      expect.objectContaining({
        kind: 'device',
        tenantId: 'uniform',
        deviceId: mine.id,
        sn: 'MQ-U1',
        username: 'MQ-U1',
        messagesIn: 3,
        subscriptions: [{ topic: `devices/${mine.sn}/command/+`, qos: 1 }],
      }),
    ]);
    expect(seen.clients[0]!.clientId).toContain('u-meter');
    expect(seen.byTenant).toEqual([{ tenantId: 'uniform', clients: 1 }]);
    expect(seen.rates.messagesIn).toBe(3);
    expect(seen.rates.perSecond).toBeGreaterThan(0);

    const all = ok(await sut.call('mqttBroker.overview', { token: admin }));
    expect(all.clients.map((c) => c.sn).sort()).toEqual(['MQ-U1', 'MQ-V1']);
    expect(all.byTenant).toEqual(
      expect.arrayContaining([
        { tenantId: 'uniform', clients: 1 },
        { tenantId: 'victor', clients: 1 },
      ]),
    );
    expect(ok(await sut.call('mqttBroker.overview', { token: admin, query: { keyword: 'mq-v' } })).clients.map((c) => c.sn)).toEqual([
      'MQ-V1',
    ]);
  });

  it('disconnects a client of the caller’s own tenant only', async () => {
    const all = ok(await sut.call('mqttBroker.overview', { token: admin }));
    const theirs = all.clients.find((c) => c.sn === 'MQ-V1')!;
    const mine = all.clients.find((c) => c.sn === 'MQ-U1')!;
    const [ownSession, theirSession] = [clients[0]!, clients[1]!];
    let ownClosed = false;
    ownSession.on('close', () => (ownClosed = true));

    // Another tenant's client is not uniform's to see, nor to cut.
    expect(ok(await sut.call('mqttBroker.disconnect', { token: uniform, body: { clientId: theirs.clientId } }))).toEqual({
      disconnected: false,
    });
    expect(theirSession.connected).toBe(true);

    expect(ok(await sut.call('mqttBroker.disconnect', { token: uniform, body: { clientId: mine.clientId } }))).toEqual({
      disconnected: true,
    });
    await waitFor('the session closed', async () => ownClosed, 5_000);
    await waitFor(
      'the client gone from the list',
      async () => ok(await sut.call('mqttBroker.overview', { token: uniform })).clients.length === 0,
      5_000,
    );
    // The rate keeps the messages of the session that ended.
    expect(ok(await sut.call('mqttBroker.overview', { token: uniform })).rates.messagesIn).toBe(3);
    // The cut is in the operation log, naming the device; the refused one left nothing.
    await sut.platform.runner.catchUp();
    const cuts = ok(await sut.call('oplog.list', { token: uniform, query: { eventType: 'MqttClientDisconnected' } })).rows;
    expect(cuts).toEqual([expect.objectContaining({ eventType: 'MqttClientDisconnected', targetName: 'Meter MQ-U1', actorKind: 'user' })]);

    // The platform administrator cuts any tenant's client.
    expect(ok(await sut.call('mqttBroker.disconnect', { token: admin, body: { clientId: theirs.clientId } }))).toEqual({
      disconnected: true,
    });
    await waitFor('the other session closed', async () => !theirSession.connected, 5_000);
  });

  it('lists an MQTT user’s session with its tenant’s clients, and lets that tenant cut it', async () => {
    const { id } = ok(
      await sut.call('mqttUser.create', { token: victor, body: { username: 'scada-v', password: 'Scada#pw1', remark: null } }),
    );
    ok(await sut.call('mqttAcl.create', { token: victor, body: { mqttUserId: id, topic: 'plant/+/status', access: 'subscribe' } }));
    await sut.platform.runner.catchUp();
    const client = mqtt.connect(mqttUrl, { username: 'scada-v', password: 'Scada#pw1', clientId: 'scada-1', reconnectPeriod: 0 });
    clients.push(client);
    await new Promise((resolve, reject) => client.once('connect', resolve).once('error', reject));
    await client.subscribeAsync('plant/+/status', { qos: 0 });

    const theirs = ok(await sut.call('mqttBroker.overview', { token: victor })).clients.find((c) => c.kind === 'mqttUser')!;
    expect(theirs).toMatchObject({
      tenantId: 'victor',
      username: 'scada-v',
      deviceId: null,
      subscriptions: [{ topic: 'plant/+/status', qos: 0 }],
    });
    expect(ok(await sut.call('mqttBroker.overview', { token: uniform })).clients.map((c) => c.kind)).not.toContain('mqttUser');
    expect(ok(await sut.call('mqttBroker.disconnect', { token: uniform, body: { clientId: theirs.clientId } }))).toEqual({
      disconnected: false,
    });
    expect(ok(await sut.call('mqttBroker.disconnect', { token: victor, body: { clientId: theirs.clientId } }))).toEqual({
      disconnected: true,
    });
    await waitFor('the MQTT user’s session closed', async () => !client.connected, 5_000);
  });
});
