import { connect, type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { ok, refusal } from '../harness/api.ts';
import { waitFor } from '../harness/process.ts';

/**
 * MQTT users and topic rules (issue 19): third-party clients of the embedded broker log in with their username and
 * password, publish and subscribe only where a topic rule grants them, never on the devices' topics, and lose their
 * sessions when their password changes.
 */
let sut: TestPlatform;
let token: string;
let brokerUrl: string;
const clients: MqttClient[] = [];

function login(username: string, password: string, clientId = `third-${Math.random().toString(16).slice(2)}`): Promise<MqttClient> {
  return new Promise((resolve, reject) => {
    const client = connect(brokerUrl, { username, password, clientId, reconnectPeriod: 0, connectTimeout: 10_000 });
    clients.push(client);
    client.once('connect', () => resolve(client));
    client.once('error', reject);
  });
}
/** Each filter with whether the broker granted it (a refused one is answered 0x80, which the client raises). */
async function subscribe(client: MqttClient, filters: string[]) {
  const answers: [string, boolean][] = [];
  for (const topic of filters)
    answers.push([
      topic,
      await client.subscribeAsync(topic, { qos: 1 }).then(
        () => true,
        () => false,
      ),
    ]);
  return answers;
}

async function mqttUser(username: string, password: string, grants: [string, 'subscribe' | 'publish' | 'both'][]) {
  const { id } = ok(await sut.call('mqttUser.create', { token, body: { username, password, remark: null } }));
  for (const [topic, access] of grants) ok(await sut.call('mqttAcl.create', { token, body: { mqttUserId: id, topic, access } }));
  await sut.platform.runner.catchUp();
  return id;
}

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'mqu', name: 'mquCo', adminUsername: 'mquAdmin', adminPassword: 'Mqu#pw123' });
  token = await sut.login('mquAdmin', 'Mqu#pw123');
  brokerUrl = `mqtt://127.0.0.1:${sut.platform.context.config.MQTT_PORT}`;
}, 180_000);
afterAll(async () => {
  for (const c of clients) c.end(true);
  await sut?.stop();
});

describe('MQTT users and topic rules', () => {
  it("refuses topic rules on the devices' topics or with a wildcard first level, and a username another MQTT user has", async () => {
    const id = await mqttUser('scada', 'Scada#pw1', [['plant/+/status', 'subscribe']]);
    for (const topic of ['devices/#', 'v1/devices/me/telemetry', 'gateways/+/telemetry', '#', '+/status', 'plant/#/x'])
      expect(refusal(await sut.call('mqttAcl.create', { token, body: { mqttUserId: id, topic, access: 'both' } })), topic).toBe(
        'VALIDATION',
      );
    const taken = await sut.call('mqttUser.create', { token, body: { username: 'SCADA', password: 'Other#pw1' }, headers: { lang: 'en' } });
    expect([refusal(taken), taken.json!.msg]).toEqual(['MQTT_ADD_FAILED', 'MQTT add failed: the name is already in use']);
    expect(ok(await sut.call('mqttAcl.list', { token, query: { mqttUserId: id } })).rows).toEqual([
      expect.objectContaining({ topic: 'plant/+/status', access: 'subscribe', username: 'scada' }),
    ]);
  });

  it("refuses a username that is a device's SN, and an SN that an MQTT user has: one name on the broker, platform-wide", async () => {
    const productId = ok(await sut.call('product.create', { token, body: { name: 'Meter', code: 'MQU-METER', type: 'direct' } })).id;
    ok(await sut.call('device.create', { token, body: { sn: 'MQU-DEV-1', name: 'meter 1', productId } }));
    for (const [lang, msg] of [
      ['en', "MQTT add failed: the username is a device's serial number"],
      ['zh', 'MQTT新增失败：用户名已是设备序列号'],
    ] as const) {
      const refused = await sut.call('mqttUser.create', {
        token,
        body: { username: 'MQU-DEV-1', password: 'Other#pw1' },
        headers: { lang },
      });
      expect([refusal(refused), refused.json!.msg]).toEqual(['MQTT_USERNAME_IS_DEVICE', msg]);
    }
    // The other way: a device cannot take an MQTT user's name as its SN, until the user is deleted.
    const userId = await mqttUser('MQU-DEV-2', 'Gate#pw12', []);
    expect(refusal(await sut.call('device.create', { token, body: { sn: 'MQU-DEV-2', name: 'meter 2', productId } }))).toBe('SN_TAKEN');
    ok(await sut.call('mqttUser.delete', { token, query: { ids: [userId] } }));
    ok(await sut.call('device.create', { token, body: { sn: 'MQU-DEV-2', name: 'meter 2', productId } }));
  });

  it('lets an MQTT user in with its password only, and subscribes it only where a rule grants it', async () => {
    await expect(login('scada', 'wrong#pw1')).rejects.toThrow();
    const scada = await login('scada', 'Scada#pw1');
    expect(
      await subscribe(scada, ['plant/+/status', 'plant/hall2/status', 'plant/#', 'other/x', 'devices/+/telemetry', '#', '$SYS/#']),
    ).toEqual([
      ['plant/+/status', true],
      ['plant/hall2/status', true],
      ['plant/#', false],
      ['other/x', false],
      ['devices/+/telemetry', false],
      ['#', false],
      ['$SYS/#', false],
    ]);
  });

  it('denies a publish on a topic the user was not granted: no subscriber gets it, and its connection is closed', async () => {
    await mqttUser('hall2', 'Hall2#pw1', [['plant/hall2/status', 'publish']]);
    const reader = await login('scada', 'Scada#pw1');
    await subscribe(reader, ['plant/+/status']);
    const seen: string[] = [];
    reader.on('message', (topic, payload) => seen.push(`${topic} ${payload.toString()}`));
    const intruder = await login('hall2', 'Hall2#pw1');
    const closed = new Promise<void>((resolve) => intruder.once('close', () => resolve()));
    intruder.publish('plant/hall3/status', 'forged', { qos: 1 });
    await closed;
    const writer = await login('hall2', 'Hall2#pw1');
    await writer.publishAsync('plant/hall2/status', 'running', { qos: 1 });
    await waitFor('the granted message', () => seen.length > 0);
    expect(seen).toEqual(['plant/hall2/status running']);
    // The devices' own topics are refused to it as any other it was not granted.
    const device = await login('hall2', 'Hall2#pw1');
    const deviceClosed = new Promise<void>((resolve) => device.once('close', () => resolve()));
    device.publish('devices/SN-1/telemetry', '{"temperature":99}', { qos: 1 });
    await deviceClosed;
  });

  it('changes a password with the old one only, and ends the sessions that logged in with the old one', async () => {
    const id = ok(await sut.call('mqttUser.list', { token, query: { username: 'hall2' } })).rows[0]!.id;
    const session = await login('hall2', 'Hall2#pw1');
    const ended = new Promise<void>((resolve) => session.once('close', () => resolve()));
    const wrong = await sut.call('mqttUser.password', { token, body: { id, oldPassword: 'Nope#pw1', newPassword: 'Hall2#new1' } });
    expect(refusal(wrong)).toBe('PASSWORD_WRONG');
    ok(await sut.call('mqttUser.password', { token, body: { id, oldPassword: 'Hall2#pw1', newPassword: 'Hall2#new1' } }));
    await sut.platform.runner.catchUp();
    await ended;
    await expect(login('hall2', 'Hall2#pw1')).rejects.toThrow();
    await login('hall2', 'Hall2#new1');
  });
});
