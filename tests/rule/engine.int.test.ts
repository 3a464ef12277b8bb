import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_CHAIN_ID, type RuleChainDefinitionIn } from '@iot/contracts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { waitFor } from '../harness/process.ts';

/**
 * The root chain on live telemetry (issue 19): a tenant that never edited its chain only stores; a saved root
 * chain raises and clears alarms from what devices publish over MQTT; switching the running version takes effect
 * without a restart, for the next message.
 */
let sut: TestPlatform;
let token: string;
let client: MqttClient;
let deviceId: string;
/** What the device received on its downlink. */
const received: Array<{ topic: string; body: unknown }> = [];
const ok = (r: { status: number; body: string; json: { data: any } | null }) => {
  expect(r.status, r.body).toBe(200);
  return r.json!.data;
};
const hotChain: RuleChainDefinitionIn = {
  name: 'Root Rule Chain',
  firstNodeId: 'type',
  nodes: [
    // Presence changes and alarms (this chain's own among them) enter the root chain too: only telemetry goes on.
    { id: 'type', name: 'By type', kind: 'router', config: { by: 'messageType' } },
    { id: 'store', name: 'Warehousing', kind: 'warehousing', config: {} },
    { id: 'hot', name: 'Hot?', kind: 'filter', config: { expression: 'has(msg.temperature) && msg.temperature > 30.0' } },
    { id: 'raise', name: 'Too hot', kind: 'createAlarm', config: { alarmName: 'Too hot', level: 4, variable: 'temperature' } },
    { id: 'clear', name: 'Cool again', kind: 'clearAlarm', config: { alarmNode: 'raise' } },
  ],
  links: [
    { from: 'type', to: 'store', label: 'telemetry' },
    { from: 'store', to: 'hot', label: 'Success' },
    { from: 'hot', to: 'raise', label: 'True' },
    { from: 'hot', to: 'clear', label: 'False' },
  ],
};
const activeAlarms = async () => {
  await sut.platform.runner.catchUp();
  return ok(await sut.call('alarm.list', { token, query: { tab: 'current', pageSize: 100 } })).rows as Array<{
    ruleName: string | null;
    value: number | null;
  }>;
};
/** Publishes one reading and waits until the chain has run for it. */
async function publish(temperature: number) {
  const before = sut.platform.rules!.stats();
  await client.publishAsync('devices/RC-1/telemetry', JSON.stringify({ temperature }), { qos: 1 });
  await sut.platform.ingest!.flush();
  return before;
}

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'tango', name: 'tangoCo', adminUsername: 'tangoAdmin', adminPassword: 'Tango#pw1' });
  token = await sut.login('tangoAdmin', 'Tango#pw1');
  const productId = ok(await sut.call('product.create', { token, body: { name: 'Room', code: 'RC', type: 'direct' } })).id;
  for (const fn of [
    { type: 'property', name: '温度', identifier: 'temperature', dataType: { type: 'float', min: -40, max: 200 } },
    { type: 'property', name: '设定值', identifier: 'setpoint', access: 'rw', dataType: { type: 'float', min: 0, max: 100 } },
  ])
    ok(await sut.call('product.defineFunction', { token, body: { productId, function: fn } }));
  ok(await sut.call('product.publish', { token, body: { id: productId } }));
  const device = ok(await sut.call('device.create', { token, body: { sn: 'RC-1', name: 'room 1', productId } }));
  deviceId = device.id;
  await sut.platform.runner.catchUp();
  const url = (sut.platform.mqtt as unknown as { url: string }).url;
  client = mqtt.connect(url, { username: 'RC-1', password: device.secret, clientId: 'c-RC-1', reconnectPeriod: 0 });
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
  });
  client.on('message', (topic, payload) => received.push({ topic, body: JSON.parse(String(payload)) }));
  await client.subscribeAsync('devices/RC-1/command/+', { qos: 1 });
}, 120_000);
afterAll(async () => {
  client?.end(true);
  await sut?.stop();
});

describe('root rule chain on live telemetry', () => {
  it('only stores for a tenant that never edited its chain: no chain runs per message', async () => {
    const before = await publish(35);
    await waitFor('the reading stored', async () => {
      const latest = ok(await sut.call('telemetry.latest', { token, query: { id: deviceId } }));
      return JSON.stringify(latest).includes('35');
    });
    expect(sut.platform.rules!.stats().done).toBe(before.done);
    expect(await activeAlarms()).toEqual([]);
  });

  it('raises and clears alarms from a saved root chain, and switches versions without a restart', async () => {
    const saved = ok(await sut.call('ruleChain.update', { token, body: { id: ROOT_CHAIN_ID, chain: hotChain, baseVersion: 1 } }));
    expect(saved.version).toBe(2);
    await sut.platform.runner.catchUp();
    await publish(36);
    const raised = await waitFor('the alarm raised by the chain', async () => (await activeAlarms()).find((a) => a.ruleName === 'Too hot'));
    expect(raised.value).toBe(36);
    await publish(20);
    await waitFor('the alarm cleared by the chain', async () => (await activeAlarms()).length === 0);

    // Back to version 1 (store only): the next hot reading goes through it and raises nothing.
    ok(await sut.call('ruleChain.run', { token, body: { id: ROOT_CHAIN_ID, version: 1 } }));
    await sut.platform.runner.catchUp();
    const before = await publish(37);
    await waitFor('the reading stored', async () =>
      JSON.stringify(ok(await sut.call('telemetry.latest', { token, query: { id: deviceId } }))).includes('37'),
    );
    await sut.platform.rules!.drain();
    expect(sut.platform.rules!.stats().done).toBe(before.done);
    expect(await activeAlarms()).toEqual([]);
  });

  it('sends a command to the device from a chain: a setpoint computed from the reading', async () => {
    const cooling: RuleChainDefinitionIn = {
      name: 'Root Rule Chain',
      firstNodeId: 'type',
      nodes: [
        { id: 'type', name: 'By type', kind: 'router', config: { by: 'messageType' } },
        { id: 'hot', name: 'Very hot?', kind: 'filter', config: { expression: 'has(msg.temperature) && msg.temperature > 50.0' } },
        {
          id: 'cool',
          name: 'Cool down',
          kind: 'command',
          config: { kind: 'property', identifier: 'setpoint', params: [{ name: 'value', expression: 'msg.temperature - 40.0' }] },
        },
      ],
      links: [
        { from: 'type', to: 'hot', label: 'telemetry' },
        { from: 'hot', to: 'cool', label: 'True' },
      ],
    };
    ok(await sut.call('ruleChain.update', { token, body: { id: ROOT_CHAIN_ID, chain: cooling } }));
    await sut.platform.runner.catchUp();
    await publish(61.5);
    const command = await waitFor('the command at the device', () => received.find((m) => m.topic.startsWith('devices/RC-1/command/')));
    expect(command.body).toMatchObject({ kind: 'property', identifier: 'setpoint', params: { value: 21.5 } });
  });
});
