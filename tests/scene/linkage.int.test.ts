import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { waitFor } from '../harness/process.ts';

/**
 * Scene linkage end to end (issue 19): a device's property condition on live MQTT telemetry fires a scene whose
 * action sets another device's property over its downlink; the run is in the linkage log with its trigger, each
 * condition's result and the action; an invoke runs it by hand; the rule list shows it and the root chain with their last trigger.
 */
let sut: TestPlatform;
let token: string;
const clients: MqttClient[] = [];
const ids: Record<string, string> = {};
/** What the actuator received on its downlink. */
const received: Array<{ topic: string; body: { identifier?: string; params?: { value?: unknown } } }> = [];
const ok = (r: { status: number; body: string; json: { data: any } | null }) => {
  expect(r.status, r.body).toBe(200);
  return r.json!.data;
};
type LogRow = {
  triggerType: string;
  result: string;
  conditions: Array<{ result: boolean }>;
  actions: Array<{ ok: boolean; target: string }>;
};
const log = async (query: Record<string, string> = {}) => {
  await sut.platform.runner.catchUp();
  return ok(await sut.call('linkageLog.list', { token, query: { pageSize: 100, ...query } })).rows as LogRow[];
};

async function connect(sn: string, secret: string) {
  const url = (sut.platform.mqtt as unknown as { url: string }).url;
  const client = mqtt.connect(url, { username: sn, password: secret, clientId: `c-${sn}`, reconnectPeriod: 0 });
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
  });
  clients.push(client);
  return client;
}
async function publish(temperature: number) {
  await clients[0]!.publishAsync('devices/SC-1/telemetry', JSON.stringify({ temperature }), { qos: 1 });
  await sut.platform.ingest!.flush();
}

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'sierra', name: 'sierraCo', adminUsername: 'sierraAdmin', adminPassword: 'Sierra#pw1' });
  token = await sut.login('sierraAdmin', 'Sierra#pw1');
  const productId = ok(await sut.call('product.create', { token, body: { name: 'Pump room', code: 'SC', type: 'direct' } })).id;
  for (const fn of [
    { type: 'property', name: '温度', identifier: 'temperature', dataType: { type: 'float', min: -40, max: 200 } },
    { type: 'property', name: '设定值', identifier: 'setpoint', access: 'rw', dataType: { type: 'float', min: 0, max: 100 } },
  ])
    ok(await sut.call('product.defineFunction', { token, body: { productId, function: fn } }));
  ok(await sut.call('product.publish', { token, body: { id: productId } }));
  const secrets: Record<string, string> = {};
  for (const sn of ['SC-1', 'SC-2']) {
    const device = ok(await sut.call('device.create', { token, body: { sn, name: sn, productId } }));
    ids[sn] = device.id;
    secrets[sn] = device.secret;
  }
  await sut.platform.runner.catchUp();
  await connect('SC-1', secrets['SC-1']!);
  const actuator = await connect('SC-2', secrets['SC-2']!);
  actuator.on('message', (topic, payload) => received.push({ topic, body: JSON.parse(String(payload)) }));
  await actuator.subscribeAsync('devices/SC-2/command/+', { qos: 1 });
  await waitFor('the actuator online', async () => {
    await sut.platform.runner.catchUp();
    const rows = ok(await sut.call('device.list', { token, query: { sn: 'SC-2' } })).rows as Array<{ status: string }>;
    return rows[0]?.status === 'online';
  });
}, 120_000);
afterAll(async () => {
  for (const client of clients) client.end(true);
  await sut?.stop();
});

describe('scene linkage on live telemetry', () => {
  let sceneId: string;

  it('fires when a property condition starts to hold, checks the conditions, sets the other device and logs the run', async () => {
    sceneId = ok(
      await sut.call('scene.create', {
        token,
        body: {
          name: 'Cool the pump room',
          triggers: [
            { type: 'device', deviceId: ids['SC-1']!, match: { kind: 'property', identifier: 'temperature', operator: 'gt', value: 30 } },
            { type: 'invoke' },
          ],
          conditions: [{ type: 'deviceStatus', deviceId: ids['SC-2']!, status: 'online' }],
          actions: [{ type: 'setProperty', deviceId: ids['SC-2']!, identifier: 'setpoint', value: 18 }],
        },
      }),
    ).id;
    // Stopped until enabled: a hot reading now fires nothing.
    ok(await sut.call('scene.status', { token, body: { id: sceneId, status: 'enabled' } }));
    await sut.platform.runner.catchUp();

    await publish(35);
    const command = await waitFor('the setpoint at the actuator', () => received.find((m) => m.topic.startsWith('devices/SC-2/command/')));
    expect(command.body).toMatchObject({ identifier: 'setpoint', params: { value: 18 } });
    await sut.platform.scenes.drain();
    const [run] = await log({ sceneId });
    expect(run).toMatchObject({ triggerType: 'device', result: 'success', conditions: [{ result: true }], actions: [{ ok: true }] });
  });

  it('does not fire again while the condition keeps holding, and fires when it starts to hold again', async () => {
    await publish(36);
    await publish(20);
    await publish(40);
    await waitFor('the second run', async () => (await log({ sceneId, triggerType: 'device' })).length === 2);
    await sut.platform.scenes.drain();
    const runs = await log({ sceneId, triggerType: 'device' });
    expect(runs.map((r) => r.result)).toEqual(['success', 'success']);
    expect(received.filter((m) => m.topic.startsWith('devices/SC-2/command/'))).toHaveLength(2);
  });

  it('runs by hand (invoke), filters the log by trigger type and result, exports it, and lists the scene among the rules', async () => {
    const { runId } = ok(await sut.call('scene.invoke', { token, body: { id: sceneId } }));
    expect(runId).toBeTruthy();
    await waitFor('the invoked run finished', async () => (await log({ triggerType: 'invoke', result: 'success' })).length === 1);
    expect(await log({ result: 'failed' })).toEqual([]);
    expect(await log({ sceneId })).toHaveLength(3);

    const csv = await sut.call('linkageLog.export', { token, query: { sceneId } });
    expect(csv.status).toBe(200);
    const lines = csv.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\n');
    expect(lines[0]).toBe('time,sceneName,triggerType,triggerContent,conditions,actions,result,durationMs');
    expect(lines).toHaveLength(4);

    const rules = ok(await sut.call('rule.list', { token, query: { kind: 'scene' } })).rows;
    expect(rules).toEqual([
      expect.objectContaining({ kind: 'scene', id: sceneId, status: 'enabled', lastTriggerTime: expect.any(String) }),
    ]);
    const all = ok(await sut.call('rule.list', { token, query: {} })).rows as Array<{ kind: string }>;
    expect(new Set(all.map((r) => r.kind))).toEqual(new Set(['scene', 'ruleChain']));
    // The root chain ran the devices' telemetry: its last trigger is recorded too (written within a second).
    const root = await waitFor('the root chain last triggered', async () => {
      const chains = ok(await sut.call('rule.list', { token, query: { kind: 'ruleChain' } })).rows as Array<{
        lastTriggerTime: string | null;
      }>;
      return chains[0]?.lastTriggerTime ? chains[0] : null;
    });
    expect(Date.parse(root.lastTriggerTime!)).toBeGreaterThan(Date.now() - 5 * 60_000);
  });

  it('refuses to run a stopped scene by hand', async () => {
    ok(await sut.call('scene.status', { token, body: { id: sceneId, status: 'stopped' } }));
    const refused = await sut.call('scene.invoke', { token, body: { id: sceneId } });
    expect(refused.status).toBe(400);
    expect(refused.json?.code).not.toBe(200);
  });
});
