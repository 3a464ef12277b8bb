import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import pino from 'pino';
import { createDevices, type NewDevice } from '@iot/command/device/create.ts';
import { newDeviceSecret } from '@iot/command/device/secrets.ts';
import { createOtaTask } from '@iot/command/ota/handlers.ts';
import { loadConfig } from '@iot/infra/config.ts';
import { startEmbeddedPostgres } from '@iot/infra/postgres/embedded.ts';
import { seedDemoTenant, startPlatform } from '@iot/infra/platform.ts';
import { createLookups } from '@iot/infra/read-models/lookups.ts';
import { otaCounts } from '@iot/projections/ota/read.ts';
import { fetchClient } from '../harness/fetch-client.ts';
import { freePort } from '../harness/free-port.ts';
import { waitFor } from '../harness/process.ts';
import type { Figure } from './figure.ts';

const DEVICES = Number(process.env.BENCH_OTA_DEVICES ?? 200);
const TENANT = 'otabench';
const CLIENTS = 32;
/** Reports per device: downloading 1..99, verifying, installing 1..99 percent (each a new event). */
const stages = (i: number) =>
  i < 99 ? { status: 'downloading', percent: i + 1 } : i === 99 ? { status: 'verifying' } : { status: 'installing', percent: i - 99 };
const REPORTS = 198;

/**
 * `ota-bookkeeping` (issue 21): progress events per second through a rollout's bookkeeping, from simulated devices'
 * MQTT progress messages (`devices/{sn}/ota/{taskId}/progress`, QoS 1) to the rollout's device read model; each
 * device's reports in order, every report a new event on its device stream. The limit, in the same run: raw
 * single-row inserts into PostgreSQL from 32 clients. The p99 to the websocket feed is not measured yet (null).
 */
export async function benchOtaBookkeeping(): Promise<Figure[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'dc-bench-ota-'));
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort(), database: 'postgres' });
  const mqttPort = await freePort();
  const platform = await startPlatform(
    loadConfig({
      DATABASE_URL: pg.url,
      DATA_DIR: dir,
      ADMIN_PASSWORD: 'Bench#adm1',
      LOG_LEVEL: 'silent',
      MQTT_PORT: String(mqttPort),
      OTA_TICK_MS: '1000',
    }),
    { port: await freePort(), staticDir: null, seedDemo: false, logger: pino({ level: 'silent' }) },
  );
  const clients: MqttClient[] = [];
  try {
    const { db, store } = platform.context;
    await seedDemoTenant(platform.context, { id: TENANT, name: 'otabenchco', adminUsername: 'otabench', adminPassword: 'Bench#pw1' });
    const api = fetchClient(platform.url!.replace('localhost', '127.0.0.1'));
    const { token } = await api.data('auth.login', { body: { account: 'otabench', password: 'Bench#pw1', agreement: true } });
    const product = await api.data('product.create', { token, body: { name: 'ota bench', code: 'OTA-BENCH', type: 'direct' } });
    const context = { tenantId: TENANT, actor: { kind: 'system' as const, id: 'bench' } };
    const secrets = new Map<string, string>();
    const devices: NewDevice[] = Array.from({ length: DEVICES }, (_, i) => {
      const sn = `OB-${i}`;
      const { secret, hash } = newDeviceSecret();
      secrets.set(sn, secret);
      const location = { lng: null, lat: null, address: null };
      const fields = { name: sn, productId: product.id, modelVersion: 0, nodeType: 'direct' as const, groupId: null, gatewayId: null };
      return { deviceId: randomUUID(), sn, ...fields, location, version: '1.0', tags: [], remark: null, secretHash: hash };
    });
    await createDevices(platform.context, context, devices);
    await platform.runner.catchUp(60_000);
    for (let i = 0; i < devices.length; i += 50)
      clients.push(
        ...(await Promise.all(
          devices.slice(i, i + 50).map(async ({ sn }) => {
            const c = await connectAsync(`mqtt://127.0.0.1:${mqttPort}`, {
              username: sn,
              password: secrets.get(sn)!,
              clientId: sn,
              reconnectPeriod: 0,
            });
            c.on('error', () => {});
            return c;
          }),
        )),
      );
    const taskId = await createOtaTask(
      { store, lookups: createLookups(db) },
      context,
      {
        name: 'bench',
        fileId: 'fw-bench',
        target: { kind: 'devices', deviceIds: devices.map((d) => d.deviceId) },
        waves: { size: DEVICES, pauseSec: 0, failurePercent: 100 },
      },
      async () => ({
        id: 'fw-bench',
        tenantId: TENANT,
        name: 'fw.bin',
        size: 1_048_576,
        sha256: 'b'.repeat(64),
        fileType: 'upgrade',
        extensionType: null,
        version: '2.0',
        storageKey: `${TENANT}/fw-bench`,
      }),
    );
    // The counts are empty until the read model has the task: every device must be counted, and none waiting for its offer.
    await waitFor(
      'every device offered',
      async () => {
        const counts = (await otaCounts(db, [taskId])).get(taskId);
        return counts?.total === DEVICES && counts.nonExecution === 0;
      },
      300_000,
      200,
    );

    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        for (let d = next++; d < DEVICES; d = next++) {
          const { sn } = devices[d]!;
          const client = clients[d]!;
          for (let r = 0; r < REPORTS; r++)
            await client.publishAsync(`devices/${sn}/ota/${taskId}/progress`, JSON.stringify(stages(r)), { qos: 1 });
        }
      }),
    );
    const sent = performance.now();
    const last = stages(REPORTS - 1);
    await waitFor(
      'every device at its last report',
      async () => {
        const rows = await db.query<{ n: number }>(
          `select count(*)::int as n from rm_ota_devices where task_id = $1 and stage = $2 and percent = $3`,
          [taskId, last.status, last.percent],
        );
        return rows.rows[0]!.n === DEVICES;
      },
      600_000,
      100,
    );
    const seconds = (performance.now() - started) / 1000;
    const events = DEVICES * REPORTS;

    // The limit: raw single-row inserts of as many rows from 32 clients.
    await db.query('create table bench_ota_raw (id bigserial primary key, device text, body jsonb)');
    const rawStarted = performance.now();
    let row = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        for (let i = row++; i < events; i = row++)
          await db.query('insert into bench_ota_raw (device, body) values ($1, $2)', [
            `OB-${i % DEVICES}`,
            JSON.stringify(stages(i % REPORTS)),
          ]);
      }),
    );
    const rawSeconds = (performance.now() - rawStarted) / 1000;
    return [
      {
        bench: 'ota-bookkeeping',
        value: Math.round(events / seconds),
        unit: 'progress events/s',
        limit: Math.round(events / rawSeconds),
        limit_of: 'raw single-row postgres inserts, 32 clients',
        devices: DEVICES,
        events,
        publish_s: Math.round(((sent - started) / 1000) * 10) / 10,
        p99_to_websocket_ms: null,
      },
    ];
  } finally {
    await Promise.all(clients.map((c) => c.endAsync(true).catch(() => {})));
    await platform.stop();
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
