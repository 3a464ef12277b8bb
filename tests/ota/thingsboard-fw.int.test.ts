import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileStore } from '@iot/contracts/ports/files.ts';
import { createOtaTask } from '@iot/command/ota/handlers.ts';
import { loadConfig } from '@iot/infra/config.ts';
import { DEMO_TENANT, startPlatform, type Platform } from '@iot/infra/platform.ts';
import { createLookups } from '@iot/infra/read-models/lookups.ts';
import { ok } from '../harness/api.ts';
import { freePort } from '../harness/free-port.ts';
import { injectRoute } from '../harness/inject.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';
import { waitFor } from '../harness/process.ts';

/**
 * ThingsBoard's firmware protocol (issue 21): a device running ThingsBoard's OTA client gets the `fw_*` shared
 * attributes, downloads the file in chunks over `v2/fw/request/{id}/chunk/{n}`, checks its SHA-256, and reports
 * `fw_state` up to UPDATED: the rollout records it upgraded, without reflashing the device for another protocol.
 */
const firmware = randomBytes(200_000);
const sha256 = createHash('sha256').update(firmware).digest('hex');
/** The files capability's store, here in memory: what the chunks are read from, by range (the demo seed puts its own). */
const objects = new Map<string, Buffer>([['mem/fw-2.1', firmware]]);
const memoryStore: FileStore = {
  async put(key, body) {
    const parts: Uint8Array[] = [];
    for await (const part of body) parts.push(part);
    const bytes = Buffer.concat(parts);
    objects.set(key, bytes);
    return { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  },
  size: async (key) => objects.get(key)?.length ?? null,
  remove: async (key) => {
    objects.delete(key);
  },
  async read(key, range) {
    const object = objects.get(key);
    if (!object) return null;
    const bytes = range ? object.subarray(range.start, range.end + 1) : object;
    return (async function* () {
      yield bytes;
    })();
  },
};

let db: TestDatabase;
let dataDir: string;
let platform: Platform;
let client: MqttClient;
let mqttPort: number;

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'dc-ota-tb-'));
  mqttPort = await freePort();
  platform = await startPlatform(
    loadConfig({
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      DEMO_DATA: 'true',
      DEMO_FLEET: '0',
      ADMIN_PASSWORD: 'admin123',
      MQTT_PORT: String(mqttPort),
    }),
    { port: 0, staticDir: null, logger: pino({ level: 'silent' }), mqttPort, fileStore: memoryStore },
  );
}, 180_000);
afterAll(async () => {
  await client?.endAsync(true);
  await platform?.stop();
  await db?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

describe("ThingsBoard's OTA client", () => {
  it('gets the fw_* attributes, downloads the chunks, and ends UPDATED with the new version', async () => {
    const token = ok(
      await injectRoute(platform.app!, 'auth.login', {
        body: { account: DEMO_TENANT.adminUsername, password: DEMO_TENANT.adminPassword, agreement: true },
      }),
    ).token;
    const productId = ok(
      await injectRoute(platform.app!, 'product.create', { token, body: { name: 'tb', code: 'TB-OTA', type: 'direct' } }),
    ).id;
    const device = ok(
      await injectRoute(platform.app!, 'device.create', { token, body: { sn: 'TB-OTA-1', name: 'tb', productId, version: '2.0' } }),
    );
    const tenantId = (await db.pool.query<{ tenant_id: string }>('select tenant_id from rm_devices where id = $1', [device.id])).rows[0]!
      .tenant_id;

    // The device, as ThingsBoard's client: its token as the username, the attribute and chunk topics subscribed.
    client = await connectAsync(`mqtt://127.0.0.1:${mqttPort}`, {
      username: device.secret,
      clientId: 'TB-OTA-1',
      reconnectPeriod: 0,
    });
    const received: string[] = [];
    const chunks = new Map<number, Buffer>();
    let attributes: Record<string, unknown> | null = null;
    client.on('message', (topic, payload) => {
      received.push(topic);
      if (topic === 'v1/devices/me/attributes') attributes = JSON.parse(payload.toString());
      const m = /^v2\/fw\/response\/(\d+)\/chunk\/(\d+)$/.exec(topic);
      if (m) chunks.set(Number(m[2]), payload);
    });
    await client.subscribeAsync('v1/devices/me/attributes', { qos: 1 });
    await client.subscribeAsync('v2/fw/response/+/chunk/+', { qos: 1 });

    const taskId = await createOtaTask(
      { store: platform.context.store, lookups: createLookups(platform.context.db) },
      { tenantId, actor: { kind: 'user', id: 'test' } },
      {
        name: 'tb to 2.1',
        fileId: 'fw-2.1',
        target: { kind: 'product', productId, version: '2.0' },
        waves: { size: 10, pauseSec: 0, failurePercent: 0 },
      },
      async () => ({
        id: 'fw-2.1',
        tenantId,
        name: 'tb-fw',
        size: firmware.length,
        sha256,
        fileType: 'upgrade',
        extensionType: null,
        version: '2.1',
        storageKey: 'mem/fw-2.1',
      }),
    );

    const fw = await waitFor('the fw_* shared attributes', () => attributes);
    expect(fw).toEqual({
      fw_title: 'tb-fw',
      fw_version: '2.1',
      fw_size: firmware.length,
      fw_checksum: sha256,
      fw_checksum_algorithm: 'SHA256',
    });

    // ThingsBoard's client: DOWNLOADING, chunk after chunk until an empty one, checksum, then UPDATING and UPDATED.
    const telemetry = (body: object) => client.publishAsync('v1/devices/me/telemetry', JSON.stringify(body), { qos: 1 });
    await telemetry({ current_fw_title: 'tb-fw', current_fw_version: '2.0', fw_state: 'DOWNLOADING' });
    const size = 64 * 1024;
    for (let n = 0; n < 16; n++) {
      await client.publishAsync(`v2/fw/request/7/chunk/${n}`, String(size), { qos: 1 });
      const chunk = await waitFor(`chunk ${n}`, () => chunks.get(n));
      if (chunk.length === 0) break;
    }
    const downloaded = Buffer.concat([...chunks.entries()].sort(([a], [b]) => a - b).map(([, b]) => b));
    expect(downloaded.length).toBe(firmware.length);
    expect(createHash('sha256').update(downloaded).digest('hex')).toBe(fw.fw_checksum);
    await telemetry({ fw_state: 'DOWNLOADED' });
    await telemetry({ fw_state: 'VERIFIED' });
    await telemetry({ fw_state: 'UPDATING' });
    await telemetry({ current_fw_title: 'tb-fw', current_fw_version: '2.1', fw_state: 'UPDATED' });

    const done = await waitFor('the task to succeed', async () => {
      const t = ok(await injectRoute(platform.app!, 'otaTask.detail', { token, query: { id: taskId } }));
      return t.status === 'success' ? t : null;
    });
    expect(done.counts).toMatchObject({ total: 1, success: 1 });
    const [row] = ok(await injectRoute(platform.app!, 'otaTask.devices', { token, query: { taskId } })).rows;
    expect([row!.status, row!.toVersion, row!.fromVersion]).toEqual(['success', '2.1', '2.0']);
    const listed = ok(await injectRoute(platform.app!, 'device.list', { token, query: { sn: 'TB-OTA-1' } }));
    expect(listed.rows[0]!.version).toBe('2.1');
    // The product's upgrade progress (spec §3) is its newest rollout's share of upgraded devices.
    expect(ok(await injectRoute(platform.app!, 'product.detail', { token, query: { id: productId } })).upgradeProgress).toBe(100);
  }, 120_000);
});
