import { connectAsync, type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../harness/api.ts';
import { resolveEngine } from '../harness/engines.ts';
import { startMosquitto } from '../harness/mosquitto.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { waitFor } from '../harness/process.ts';

/**
 * MQTT users and topic rules on Mosquitto (issue 19): the platform keeps them in the broker's dynamic-security plugin,
 * so that the broker itself lets a user in with its password, grants it only its rules' topics and never the devices',
 * and refuses it once deleted.
 */
let sut: TestPlatform;
let token: string;
let brokerUrl: string;
const clients: MqttClient[] = [];

/** An MQTT user's session: MQTT 5, so that a refused publish is answered with its reason. Its client id is its username. */
async function login(username: string, password: string, clientId = username): Promise<MqttClient> {
  const client = await connectAsync(brokerUrl, {
    username,
    password,
    clientId,
    protocolVersion: 5,
    reconnectPeriod: 0,
    connectTimeout: 5000,
  });
  clients.push(client);
  return client;
}
const admitted = (username: string, password: string, clientId = username) =>
  login(username, password, clientId).then(
    (c) => (c.end(true), true),
    () => false,
  );
const subscribed = (client: MqttClient, topic: string) =>
  client.subscribeAsync(topic, { qos: 1 }).then(
    (granted) => granted.every((g) => g.qos < 0x80),
    () => false,
  );
const published = (client: MqttClient, topic: string) =>
  client.publishAsync(topic, 'x', { qos: 1 }).then(
    () => true,
    () => false,
  );
/** A publish on a session of its own: refused (0x87), the broker then closes that session, as the embedded one does. */
async function publishRefused(username: string, password: string, topic: string) {
  const client = await login(username, password);
  const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
  const refused = !(await published(client, topic));
  await closed;
  return refused;
}

const resolved = await resolveEngine('Mosquitto with dynamic security', 'MOSQUITTO_DYNSEC_ADMIN_URL', async () => {
  const started = await startMosquitto({ dynamicSecurity: true });
  return { url: started.adminUrl, stop: started.stop };
});

beforeAll(async () => {
  if (!resolved.ok) return;
  const adminUrl = resolved.engine.url;
  brokerUrl = adminUrl.replace(/\/\/[^@/]*@/, '//');
  sut = await startTestPlatform({ MQTT_URL: adminUrl, MQTT_DYNSEC: 'true', MQTT_CLIENT_ID: `mqu-${Date.now()}` });
  await sut.seedTenant({ id: 'mqm', name: 'mqmCo', adminUsername: 'mqmAdmin', adminPassword: 'Mqm#pw123' });
  token = await sut.login('mqmAdmin', 'Mqm#pw123');
}, 180_000);
afterAll(async () => {
  for (const c of clients) c.end(true);
  await sut?.stop();
  if (resolved.ok) await resolved.engine.stop();
});

if (!resolved.ok) console.info(`The Mosquitto MQTT-user suite is not run: ${resolved.reason}`);
else
  describe('MQTT users on Mosquitto’s dynamic security', () => {
    it(
      'lets a user in with its password, on its granted topics only, never the devices’; a new password ends the old one',
      { timeout: 180_000 },
      async () => {
        const { id } = ok(await sut.call('mqttUser.create', { token, body: { username: 'scada-m', password: 'Scada#pw1', remark: null } }));
        const { id: aclId } = ok(await sut.call('mqttAcl.create', { token, body: { mqttUserId: id, topic: 'plant/#', access: 'both' } }));
        ok(await sut.call('mqttAcl.create', { token, body: { mqttUserId: id, topic: 'alerts/+', access: 'subscribe' } }));
        await sut.platform.runner.catchUp();

        expect(await admitted('scada-m', 'wrong#pw1')).toBe(false);
        // Its client id is its username: it cannot take another session's (a device's) over.
        expect(await admitted('scada-m', 'Scada#pw1', 'MQ-DEVICE-1')).toBe(false);
        const scada = await login('scada-m', 'Scada#pw1');
        const received: string[] = [];
        scada.on('message', (topic) => received.push(topic));
        expect(await subscribed(scada, 'plant/#')).toBe(true);
        expect(await subscribed(scada, 'alerts/+')).toBe(true);
        expect(await published(scada, 'plant/hall1/status')).toBe(true);
        await waitFor('its own message back', async () => received.includes('plant/hall1/status'), 5000);

        expect(await subscribed(scada, 'other/x')).toBe(false);
        for (const topic of ['devices/+/telemetry', 'devices/#', 'gateways/#', '#'])
          expect(await subscribed(scada, topic), topic).toBe(false);
        for (const topic of ['other/x', 'alerts/fire', 'devices/MQ-DEVICE-1/telemetry'])
          expect(await publishRefused('scada-m', 'Scada#pw1', topic), topic).toBe(true);

        // A rule taken back: the topic closes.
        ok(await sut.call('mqttAcl.delete', { token, query: { ids: [aclId] } }));
        await sut.platform.runner.catchUp();
        expect(await publishRefused('scada-m', 'Scada#pw1', 'plant/hall1/status')).toBe(true);

        const current = await login('scada-m', 'Scada#pw1');
        const away = new Promise<void>((resolve) => current.once('close', () => resolve()));
        ok(await sut.call('mqttUser.password', { token, body: { id, oldPassword: 'Scada#pw1', newPassword: 'Scada#pw2' } }));
        await away;
        expect(await admitted('scada-m', 'Scada#pw1')).toBe(false);
        expect(await admitted('scada-m', 'Scada#pw2')).toBe(true);
      },
    );

    it('refuses a deleted user, ending its session', async () => {
      const { id } = ok(await sut.call('mqttUser.create', { token, body: { username: 'historian', password: 'Hist#pw12', remark: null } }));
      ok(await sut.call('mqttAcl.create', { token, body: { mqttUserId: id, topic: 'history/#', access: 'publish' } }));
      await sut.platform.runner.catchUp();
      const historian = await login('historian', 'Hist#pw12');
      expect(await published(historian, 'history/a')).toBe(true);

      const away = new Promise<void>((resolve) => historian.once('close', () => resolve()));
      ok(await sut.call('mqttUser.delete', { token, query: { ids: [id] } }));
      await sut.platform.runner.catchUp();
      await away;
      expect(await admitted('historian', 'Hist#pw12')).toBe(false);
    });
  });
