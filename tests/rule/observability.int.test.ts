import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_CHAIN_ID, type RuleChainDefinitionIn } from '@iot/contracts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { waitFor } from '../harness/process.ts';

/**
 * Observability of the rule chains (issue 19): a node that throws goes out by its Failure link, the chain and the
 * intake go on, the failure is captured (message, node, error, path); a node's debug traces hold what entered and
 * left it; a captured message replays through any version of the chain, its side-effect nodes run dry.
 */
let sut: TestPlatform;
let token: string;
let client: MqttClient;
let deviceId: string;
const ok = (r: { status: number; body: string; json: { data: any } | null }) => {
  expect(r.status, r.body).toBe(200);
  return r.json!.data;
};
const chain: RuleChainDefinitionIn = {
  name: 'Root Rule Chain',
  firstNodeId: 'type',
  nodes: [
    { id: 'type', name: 'By type', kind: 'router', config: { by: 'messageType' } },
    { id: 'store', name: 'Warehousing', kind: 'warehousing', config: {} },
    // No `has(msg.pressure)`: a reading without pressure makes the expression fail.
    { id: 'high', name: 'High pressure?', kind: 'filter', config: { expression: 'msg.pressure > 5.0' } },
    { id: 'note', name: 'Note the failure', kind: 'notify', config: { subject: 'Chain failure', content: "'no pressure'" } },
  ],
  links: [
    { from: 'type', to: 'store', label: 'telemetry' },
    { from: 'store', to: 'high', label: 'Success' },
    { from: 'high', to: 'note', label: 'Failure' },
  ],
};
type Failure = { id: string; nodeId: string; error: string; path: string[]; message: { data: Record<string, unknown> } };

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'oscar', name: 'oscarCo', adminUsername: 'oscarAdmin', adminPassword: 'Oscar#pw1' });
  token = await sut.login('oscarAdmin', 'Oscar#pw1');
  const productId = ok(await sut.call('product.create', { token, body: { name: 'Pump', code: 'PU', type: 'direct' } })).id;
  for (const fn of [
    { type: 'property', name: '温度', identifier: 'temperature', dataType: { type: 'float', min: -40, max: 200 } },
    { type: 'property', name: '压力', identifier: 'pressure', dataType: { type: 'float', min: 0, max: 100 } },
  ])
    ok(await sut.call('product.defineFunction', { token, body: { productId, function: fn } }));
  ok(await sut.call('product.publish', { token, body: { id: productId } }));
  const device = ok(await sut.call('device.create', { token, body: { sn: 'PU-1', name: 'pump 1', productId } }));
  deviceId = device.id;
  ok(await sut.call('ruleChain.update', { token, body: { id: ROOT_CHAIN_ID, chain } }));
  await sut.platform.runner.catchUp();
  const url = (sut.platform.mqtt as unknown as { url: string }).url;
  client = mqtt.connect(url, { username: 'PU-1', password: device.secret, clientId: 'c-PU-1', reconnectPeriod: 0 });
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
  });
}, 120_000);
afterAll(async () => {
  client?.end(true);
  await sut?.stop();
});

async function publish(values: Record<string, number>) {
  await client.publishAsync('devices/PU-1/telemetry', JSON.stringify(values), { qos: 1 });
  await sut.platform.ingest!.flush();
}

describe('rule chain failures, debug traces and replay', () => {
  it('captures a failing node (message, node, error, path), goes on by Failure, and never stops the intake', async () => {
    ok(await sut.call('ruleChain.setDebug', { token, body: { id: ROOT_CHAIN_ID, nodeId: 'high', minutes: 5, sampleRate: 1 } }));
    await sut.platform.runner.catchUp();
    await publish({ temperature: 21 });
    const failure = await waitFor('the failure captured', async () => {
      const rows = ok(await sut.call('ruleChain.failures', { token, query: { chainId: ROOT_CHAIN_ID } })).rows as Failure[];
      return rows[0];
    });
    expect(failure).toMatchObject({ nodeId: 'high', path: ['type', 'store', 'high'], message: { data: { temperature: 21 } } });
    expect(failure.error).toMatch(/expression failed/);
    // The Failure link ran: the notify node put a message in the inbox.
    await waitFor('the notify node after the failure', async () =>
      JSON.stringify(ok(await sut.call('notifyRecord.unread', { token }))).includes('Chain failure'),
    );
    // The intake goes on: the next reading is stored.
    await publish({ temperature: 22, pressure: 7 });
    await waitFor('the next reading stored', async () =>
      JSON.stringify(ok(await sut.call('telemetry.latest', { token, query: { id: deviceId } }))).includes('22'),
    );

    // The node's debug traces: the failing message and the one that went out by True.
    const traces = await waitFor('two traces of the node', async () => {
      const rows = ok(await sut.call('ruleChain.traces', { token, query: { id: ROOT_CHAIN_ID, nodeId: 'high' } })) as Array<{
        labels: string[];
        input: { data: Record<string, unknown> };
        error: string | null;
      }>;
      return rows.length >= 2 ? rows : undefined;
    });
    expect(traces.map((t) => t.labels)).toEqual([['True'], ['Failure']]);
    expect(traces[1]!.error).toMatch(/expression failed/);
    expect(traces[0]!.input.data).toMatchObject({ temperature: 22, pressure: 7 });
    const switches = ok(await sut.call('ruleChain.debug', { token, query: { id: ROOT_CHAIN_ID } }));
    expect(switches).toMatchObject([{ nodeId: 'high', sampleRate: 1, active: true }]);
  });

  it('replays a captured message through any version, side-effect nodes dry, each node with its output', async () => {
    const failure = (ok(await sut.call('ruleChain.failures', { token, query: { nodeId: 'high' } })).rows as Failure[]).at(-1)!;
    // Version 3 handles a missing pressure: the same message now goes out by False.
    const fixed = structuredClone(chain);
    fixed.nodes[2] = { ...fixed.nodes[2]!, config: { expression: 'has(msg.pressure) && msg.pressure > 5.0' } } as never;
    const v3 = ok(await sut.call('ruleChain.update', { token, body: { id: ROOT_CHAIN_ID, chain: fixed, run: false } })).version;
    const before = ok(await sut.call('notifyRecord.unread', { token })).unread;

    const replayed = ok(await sut.call('ruleChain.replay', { token, body: { id: ROOT_CHAIN_ID, version: v3, failureId: failure.id } }));
    expect(replayed.version).toBe(v3);
    expect(replayed.failures).toBe(0);
    expect(replayed.steps.map((s: { nodeId: string; labels: string[]; dryRun: boolean }) => [s.nodeId, s.labels.join(), s.dryRun])).toEqual(
      [
        ['type', 'telemetry', false],
        ['store', 'Success', true],
        ['high', 'False', false],
      ],
    );
    // Through the version that failed it: the failure again, the notify node dry (no new inbox message).
    const again = ok(await sut.call('ruleChain.replay', { token, body: { id: ROOT_CHAIN_ID, failureId: failure.id } }));
    expect(again.failures).toBe(1);
    expect(again.steps.at(-1)).toMatchObject({ nodeId: 'note', dryRun: true, labels: ['Success'] });
    expect(ok(await sut.call('notifyRecord.unread', { token })).unread).toBe(before);

    // A message given instead of a captured one.
    const given = ok(
      await sut.call('ruleChain.replay', {
        token,
        body: {
          id: ROOT_CHAIN_ID,
          version: v3,
          message: { id: 'probe', type: 'telemetry', deviceId, ts: new Date().toISOString(), data: { pressure: 9 } },
        },
      }),
    );
    expect(given.steps.at(-1)).toMatchObject({ nodeId: 'high', labels: ['True'], output: { data: { pressure: 9 } } });
    expect((await sut.call('ruleChain.replay', { token, body: { id: ROOT_CHAIN_ID, failureId: '999999' } })).status).toBe(404);
  });

  it('switches a node debug off; an unknown node is NOT_FOUND', async () => {
    const off = ok(await sut.call('ruleChain.setDebug', { token, body: { id: ROOT_CHAIN_ID, nodeId: 'high', minutes: 0 } }));
    expect(off.active).toBe(false);
    expect(ok(await sut.call('ruleChain.debug', { token, query: { id: ROOT_CHAIN_ID } }))).toMatchObject([
      { nodeId: 'high', active: false },
    ]);
    expect((await sut.call('ruleChain.setDebug', { token, body: { id: ROOT_CHAIN_ID, nodeId: 'nope', minutes: 5 } })).status).toBe(404);
  });
});
