import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { connectAsync } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_CHAIN_ID, type RuleChainDefinitionIn } from '@iot/contracts';
import { ok } from '../harness/api.ts';
import { resolveEngine, type EngineHandle } from '../harness/engines.ts';
import { fetchClient } from '../harness/fetch-client.ts';
import { startKafka } from '../harness/kafka.ts';
import { freePort } from '../harness/free-port.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';
import { onboardTenant, startProcess, waitFor, type PlatformProcess } from '../harness/process.ts';

/**
 * A message inside a rule chain survives the process's death (issue 19): the chain runs each stored batch from the
 * telemetry journal and marks it there once it ran, so a batch stored and acknowledged whose forward node had not yet
 * written the forwarding outbox is run again at the next start. The interleaving is forced: the chain's forwards after
 * the second never reach the outbox (FAULT_STALL_FORWARD_AFTER), and the test kills the process once the values are
 * acknowledged. Every acknowledged value then reaches the target at least once, each copy under one message id.
 * Over Kafka the writer runs each consumed batch through the chains before the bus moves its position, each message
 * under an id named by its offset: the same scenario holds.
 */
let db: TestDatabase;
let dir: string;
let target: Server;
let kafka: EngineHandle | null = null;
const running: PlatformProcess[] = [];
/** What the target received: the path it was sent to (one per scenario), the body's value and the `x-message-id` header. */
const received: Array<{ path: string; count: number; messageId: string }> = [];

beforeAll(async () => {
  db = await createTestDatabase();
  dir = await mkdtemp(path.join(os.tmpdir(), 'dc-chain-crash-'));
  target = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({
        path: req.url ?? '',
        count: (JSON.parse(body) as { count: number }).count,
        messageId: String(req.headers['x-message-id']),
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
}, 120_000);

afterAll(async () => {
  // Killed: a process whose chain is held never drains.
  for (const p of running) p.child.kill('SIGKILL');
  await new Promise<void>((resolve) => target?.close(() => resolve()));
  await kafka?.stop();
  await db?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function start(name: string, env: Record<string, string>): Promise<PlatformProcess> {
  // One data directory per scenario: each has its own chDB and journal.
  await mkdir(path.join(dir, name), { recursive: true });
  const p = await startProcess(db, path.join(dir, name), { OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32', FORWARD_RETRY_MS: '20', ...env });
  running.push(p);
  return p;
}

/** The scenario under `name` (its tenant, device and target path), each process started with `env` besides. */
async function scenario(name: string, env: Record<string, string>) {
  const mqttPort = String(await freePort());
  const setUp = await start(name, { MQTT_PORT: mqttPort, ...env });
  const api = fetchClient(setUp.url);
  await onboardTenant(setUp, db, name, 'Tenant#pw1');
  const token = await waitFor('the tenant administrator', async () => {
    const r = await api.call('auth.login', { body: { account: name, password: 'Tenant#pw1', agreement: true } });
    return r.status === 200 ? (r.json!.data.token as string) : null;
  });
  const productId = ok(await api.call('product.create', { token, body: { name: 'meter', code: `METER-${name}`, type: 'direct' } })).id;
  ok(
    await api.call('product.defineFunction', {
      token,
      body: {
        productId,
        function: { type: 'property', name: '计数', identifier: 'count', dataType: { type: 'int', min: 0, max: 1000 } },
      },
    }),
  );
  ok(await api.call('product.publish', { token, body: { id: productId } }));
  const sn = `CRASH-${name}`;
  const device = ok(await api.call('device.create', { token, body: { sn, name: sn, productId } }));
  const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/${name}`;
  const got = () => received.filter((r) => r.path === `/${name}`);
  const { id: serverId } = ok(await api.call('forwardServer.createHttp', { token, body: { name: 'target', url } }));
  const chain: RuleChainDefinitionIn = {
    name: 'forward telemetry',
    firstNodeId: 'telemetry',
    nodes: [
      { id: 'telemetry', name: 'telemetry only', kind: 'filter', config: { expression: "msgType == 'telemetry'" } },
      { id: 'forward', name: 'to the target', kind: 'forward', config: { serverId, payloadTemplate: '{{values}}' } },
    ],
    links: [{ from: 'telemetry', to: 'forward', label: 'True' }],
  };
  const { version } = ok(await api.call('ruleChain.update', { token, body: { id: ROOT_CHAIN_ID, chain, baseVersion: 1 } }));
  ok(await api.call('ruleChain.run', { token, body: { id: ROOT_CHAIN_ID, version } }));
  await setUp.stop();
  // A process reads the running chains as it starts, before it takes a message.
  const first = await start(name, { MQTT_PORT: mqttPort, FAULT_STALL_FORWARD_AFTER: '2', ...env });

  // Given values published one at a time at QoS 1, each acknowledged once stored (and journaled), of which the
  // chain forwards the first two and holds the others before their outbox insert.
  const client = await connectAsync(`mqtt://127.0.0.1:${mqttPort}`, {
    clientId: sn,
    username: sn,
    password: device.secret,
    reconnectPeriod: 0,
  });
  const counts = [1, 2, 3, 4, 5, 6];
  for (const count of counts) await client.publishAsync(`devices/${sn}/telemetry`, JSON.stringify({ count }), { qos: 1 });
  await waitFor('the first two at the target', () => [1, 2].every((count) => got().some((r) => r.count === count)));
  // When the process dies there,
  first.child.kill('SIGKILL');
  expect(await first.exited).toBe('SIGKILL');
  client.end(true);

  // then after the next start every acknowledged value reaches the target at least once,
  const next = await start(name, { MQTT_PORT: mqttPort, ...env });
  await waitFor('every acknowledged value at the target', () => counts.every((count) => got().some((r) => r.count === count)));
  // each under one message id however often it came, for the target to drop a repeat.
  for (const count of counts)
    expect(
      new Set(
        got()
          .filter((r) => r.count === count)
          .map((r) => r.messageId),
      ).size,
    ).toBe(1);
  expect(got().every((r) => r.messageId.length > 0 && r.messageId !== 'undefined')).toBe(true);
  await next.stop();
}

describe('a rule chain across a crash', () => {
  it('forwards every acknowledged message at least once when the process dies before the outbox insert', async () => {
    await scenario('chainCrash', {});
  }, 600_000);

  it('does the same over Kafka: the bus moves its position only once the chains ran a batch', async () => {
    const resolved = await resolveEngine('Kafka', 'KAFKA_BROKERS', () => startKafka());
    if (!resolved.ok) throw new Error(resolved.reason);
    kafka = resolved.engine;
    await scenario('chainCrashKafka', { KAFKA_BROKERS: kafka.url });
  }, 600_000);
});
