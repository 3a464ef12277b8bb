import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@iot/infra/config.ts';
import { DEMO_TENANT, startPlatform, type Platform } from '@iot/infra/platform.ts';
import { ok } from '../harness/api.ts';
import { freePort } from '../harness/free-port.ts';
import { injectRoute } from '../harness/inject.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';
import { waitFor } from '../harness/process.ts';

/**
 * A restart task over simulated MQTT devices (issue 21, spec §4): at the task time an online device is sent the
 * reserved `restart` service and acknowledges (success) or refuses (fail with its reason); an offline one is paused,
 * sent the restart when it reconnects, and one that never comes back fails as expired at the expiry.
 */
let db: TestDatabase;
let dataDir: string;
let mqttPort: number;
let platform: Platform;
let token: string;
const secrets = new Map<string, string>();
const ids = new Map<string, string>();
const clients: MqttClient[] = [];
/** The restart commands each device received. */
const received = new Map<string, number>();
const SNS = ['RST-ACK', 'RST-REFUSE', 'RST-LATE', 'RST-GONE'];

/** A device that answers a restart command on its reply topic: `{}` acknowledges, `{ok: false}` refuses. */
async function connect(sn: string, answer: object) {
  const client = await connectAsync(`mqtt://127.0.0.1:${mqttPort}`, {
    username: sn,
    password: secrets.get(sn)!,
    clientId: sn,
    reconnectPeriod: 0,
  });
  client.on('error', () => {});
  client.on('message', (topic, payload) => {
    const messageId = topic.split('/').at(-1)!;
    const command = JSON.parse(payload.toString()) as { identifier: string };
    if (command.identifier !== 'restart') return;
    received.set(sn, (received.get(sn) ?? 0) + 1);
    void client.publishAsync(`devices/${sn}/reply/${messageId}`, JSON.stringify(answer), { qos: 1 });
  });
  await client.subscribeAsync(`devices/${sn}/command/#`, { qos: 1 });
  clients.push(client);
}

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'dc-restart-'));
  mqttPort = await freePort();
  platform = await startPlatform(
    loadConfig({
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      DEMO_DATA: 'true',
      DEMO_FLEET: '0',
      ADMIN_PASSWORD: 'admin123',
      MQTT_PORT: String(mqttPort),
      OTA_TICK_MS: '200',
    }),
    { port: 0, staticDir: null, logger: pino({ level: 'silent' }), mqttPort },
  );
  token = ok(
    await injectRoute(platform.app!, 'auth.login', {
      body: { account: DEMO_TENANT.adminUsername, password: DEMO_TENANT.adminPassword, agreement: true },
    }),
  ).token;
  const productId = ok(
    await injectRoute(platform.app!, 'product.create', { token, body: { name: 'router', code: 'RST-ROUTER', type: 'direct' } }),
  ).id;
  for (const sn of SNS) {
    const d = ok(await injectRoute(platform.app!, 'device.create', { token, body: { sn, name: sn, productId } }));
    secrets.set(sn, d.secret);
    ids.set(sn, d.id);
  }
}, 300_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.endAsync(true)));
  await platform?.stop();
  await db?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

const statusBySn = async (taskId: string) =>
  Object.fromEntries(
    ok(await injectRoute(platform.app!, 'restartTask.devices', { token, query: { taskId, pageSize: 500 } })).rows.map((d) => [
      d.sn,
      `${d.status}${d.reason ? `:${d.reason}` : ''}`,
    ]),
  );
const taskStatus = async (taskId: string) =>
  ok(await injectRoute(platform.app!, 'restartTask.list', { token, query: { name: 'nightly' } })).rows.find((t) => t.id === taskId)?.status;

describe('a restart task over MQTT devices', () => {
  it('refuses an expiry that is not later than the task time, in the caller language', async () => {
    const at = new Date().toISOString();
    for (const [lang, msg] of [
      ['en', 'The expiry must be later than the task time'],
      ['zh', '过期时间必须晚于任务时间'],
    ] as const) {
      const answer = await injectRoute(platform.app!, 'restartTask.create', {
        token,
        headers: { lang },
        body: { name: 'nightly', target: { kind: 'devices', deviceIds: [ids.get('RST-ACK')!] }, taskTime: at, expiry: at },
      });
      expect(answer.status).toBe(400);
      expect(answer.json!.msg).toContain(msg);
    }
  });

  it('restarts online devices at the task time, retries an offline one when it reconnects, and expires the one that never does', async () => {
    await connect('RST-ACK', {});
    await connect('RST-REFUSE', { ok: false, reason: 'battery low' });
    const now = Date.now();
    const { id } = ok(
      await injectRoute(platform.app!, 'restartTask.create', {
        token,
        body: {
          name: 'nightly',
          target: { kind: 'devices', deviceIds: SNS.map((sn) => ids.get(sn)!) },
          taskTime: new Date(now).toISOString(),
          expiry: new Date(now + 10_000).toISOString(),
        },
      }),
    );
    expect(
      await waitFor('online devices settled, offline ones paused', async () => {
        const s = await statusBySn(id);
        return s['RST-ACK'] === 'success' && s['RST-REFUSE'] === 'fail:battery low' && s['RST-LATE'] === 'pause' && s;
      }),
    ).toEqual({ 'RST-ACK': 'success', 'RST-REFUSE': 'fail:battery low', 'RST-LATE': 'pause', 'RST-GONE': 'pause' });
    expect(await taskStatus(id)).toBe('executing');

    await connect('RST-LATE', {});
    await waitFor('the late device restarted on reconnect', async () => (await statusBySn(id))['RST-LATE'] === 'success');
    await waitFor('the task ended at its expiry', async () => (await taskStatus(id)) === 'fail', 30_000);
    expect(await statusBySn(id)).toEqual({
      'RST-ACK': 'success',
      'RST-REFUSE': 'fail:battery low',
      'RST-LATE': 'success',
      'RST-GONE': 'fail:expired',
    });
    expect(Object.fromEntries(received)).toEqual({ 'RST-ACK': 1, 'RST-REFUSE': 1, 'RST-LATE': 1 });
  });
});
