import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import mqtt, { connectAsync, type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../harness/api.ts';
import { fetchClient, type FetchClient } from '../harness/fetch-client.ts';
import { freePort } from '../harness/free-port.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';
import { onboardTenant, startProcess, waitFor, type PlatformProcess } from '../harness/process.ts';

/**
 * Presence across a restart (issue 11): the platform is killed while devices are connected, so the log still
 * says they are online. On the next start, a device that does not come back is recorded offline after the
 * offline delay; one that reconnects within it stays online with no offline event.
 */
let db: TestDatabase;
let dataDir: string;
let platform: PlatformProcess | null = null;
/** The running process's API (a restarted one listens on another port). */
let api: FetchClient;
let mqttPort: number;
const clients: MqttClient[] = [];
const env = () => ({ MQTT_PORT: String(mqttPort), PRESENCE_OFFLINE_AFTER_MS: '1500' });

const connect = async (sn: string, secret: string) => {
  const client = await connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { username: sn, password: secret, clientId: sn, reconnectPeriod: 0 });
  clients.push(client);
  return client;
};
const presence = async (id: string) =>
  (
    await db.pool.query<{ type: string }>(
      `select type from es_events where stream_name like $1 and type in ('DeviceWentOnline', 'DeviceWentOffline') order by global_position`,
      [`device-%.${id}`],
    )
  ).rows.map((r) => r.type);

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'dc-presence-'));
  mqttPort = await freePort();
  platform = await startProcess(db, dataDir, env());
  api = fetchClient(platform.url);
}, 120_000);
afterAll(async () => {
  for (const c of clients) c.end(true);
  await platform?.stop();
  await db?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('presence at restart', () => {
  it('records offline the devices that were online when the process died and did not come back; keeps the ones that did', async () => {
    await onboardTenant(platform!, db, 'presenceCo', 'Tenant#pw1');
    const token = await waitFor('the tenant administrator', async () => {
      const r = await api.call('auth.login', { body: { account: 'presenceCo', password: 'Tenant#pw1', agreement: true } });
      return r.status === 200 ? (r.json!.data.token as string) : null;
    });
    const productId = ok(await api.call('product.create', { token, body: { name: 'meter', code: 'P-METER', type: 'direct' } })).id;
    const gone = ok(await api.call('device.create', { token, body: { sn: 'P-GONE', name: 'gone', productId } }));
    const back = ok(await api.call('device.create', { token, body: { sn: 'P-BACK', name: 'back', productId } }));
    await waitFor('the devices to be known', async () => (await db.pool.query('select 1 from rm_devices')).rowCount === 2);
    await connect('P-GONE', gone.secret);
    await connect('P-BACK', back.secret);
    await waitFor('both online', async () => (await presence(gone.id)).length === 1 && (await presence(back.id)).length === 1);

    // Killed: no disconnect is ever recorded, and the devices' connections drop with it.
    platform!.child.kill('SIGKILL');
    await platform!.exited;
    for (const c of clients.splice(0)) c.end(true);
    // P-BACK retries as firmware does and is back as soon as the new process lets devices in, whatever its start costs.
    const returning = mqtt.connect(`mqtt://127.0.0.1:${mqttPort}`, {
      username: 'P-BACK',
      password: back.secret,
      clientId: 'P-BACK',
      reconnectPeriod: 50,
      // Refused while the intake is not up yet: tries again.
      reconnectOnConnackError: true,
    });
    clients.push(returning);
    returning.on('error', () => {});
    const returned = new Promise((resolve) => returning.once('connect', resolve));
    platform = await startProcess(db, dataDir, env());
    api = fetchClient(platform.url);
    await returned;
    returning.options.reconnectPeriod = 0;

    // Both were left online by the killed process and given one delay in one pass at start: once the absent one is
    // recorded offline, the other's delay has run out too, and only its reconnect kept it online.
    await waitFor('the absent device offline', async () => (await presence(gone.id)).at(-1) === 'DeviceWentOffline', 15_000);
    expect(await presence(gone.id)).toEqual(['DeviceWentOnline', 'DeviceWentOffline']);
    expect(await presence(back.id)).toEqual(['DeviceWentOnline']);
    // The device list is a projection of those events: it shows them once its follower has read them.
    const statuses = async () =>
      Object.fromEntries(ok(await api.call('device.list', { token, query: { pageSize: 10 } })).rows.map((d) => [d.sn, d.status]));
    await waitFor('the list to show the absent device offline', async () => (await statuses())['P-GONE'] === 'offline', 15_000);
    expect(await statuses()).toEqual({ 'P-GONE': 'offline', 'P-BACK': 'online' });
  }, 180_000);
});
