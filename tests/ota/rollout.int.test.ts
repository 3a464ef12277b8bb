import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OtaTaskCreate, StoredFile } from '@iot/contracts';
import { createOtaTask } from '@iot/command/ota/handlers.ts';
import { createDevices, type NewDevice } from '@iot/command/device/create.ts';
import { newDeviceSecret } from '@iot/command/device/secrets.ts';
import { loadConfig } from '@iot/infra/config.ts';
import { DEMO_TENANT, startPlatform, type Platform } from '@iot/infra/platform.ts';
import { createLookups } from '@iot/infra/read-models/lookups.ts';
import { ok } from '../harness/api.ts';
import { freePort } from '../harness/free-port.ts';
import { injectRoute } from '../harness/inject.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';
import { waitFor } from '../harness/process.ts';
import { createFleet, type Fleet, type Script } from './devices.ts';

/**
 * An OTA rollout over simulated MQTT devices (issue 21): waves, devices failing and going offline (paused, resumed
 * on reconnect), an operator's pause and resume, the failure-rate stop, a cancel mid-download, and a platform restart
 * mid-rollout.
 */
const DEVICES = Number(process.env.OTA_TEST_DEVICES ?? 50);
/** How long each rollout may take: longer for the 1,000-device run (`OTA_TEST_DEVICES=1000`). */
const ROLLOUT_MS = 240_000 + DEVICES * 600;
/** `waitFor` with room for the 1,000-device run: a wave of 200 devices takes more than a minute at load 20. */
const waitLong = <T>(
  what: string,
  fn: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs = ROLLOUT_MS / 2,
) => waitFor(what, fn, timeoutMs);
let db: TestDatabase;
let dataDir: string;
let mqttPort: number;
let platform: Platform;
let fleet: Fleet;
let token: string;
let tenantId: string;
const sns: string[] = [];

const start = async () =>
  startPlatform(
    loadConfig({
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      DEMO_DATA: 'true',
      DEMO_FLEET: '0',
      ADMIN_PASSWORD: 'admin123',
      MQTT_PORT: String(mqttPort),
      PRESENCE_OFFLINE_AFTER_MS: '300',
      OTA_TICK_MS: '200',
    }),
    { port: 0, staticDir: null, logger: pino({ level: 'silent' }), mqttPort },
  );

/** The package: the files capability's record, given here as its lookup would answer it. */
const file = (): StoredFile => ({
  id: 'fw-2.0',
  tenantId,
  name: 'meter-fw-2.0.bin',
  size: 1_048_576,
  sha256: 'a'.repeat(64),
  fileType: 'upgrade',
  extensionType: null,
  version: '2.0',
  storageKey: `${tenantId}/fw-2.0`,
});
const create = (body: OtaTaskCreate) =>
  createOtaTask(
    { store: platform.context.store, lookups: createLookups(platform.context.db) },
    { tenantId, actor: { kind: 'user', id: 'test' } },
    body,
    async () => file(),
  );

const detail = async (id: string) => ok(await injectRoute(platform.app!, 'otaTask.detail', { token, query: { id } }));
const devicesOf = async (id: string) =>
  ok(await injectRoute(platform.app!, 'otaTask.devices', { token, query: { taskId: id, pageSize: 500 } })).rows;
const statusBySn = async (id: string) => Object.fromEntries((await devicesOf(id)).map((d) => [d.sn, d.status]));

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'dc-ota-'));
  mqttPort = await freePort();
  platform = await start();
  fleet = createFleet(`mqtt://127.0.0.1:${mqttPort}`);
  token = ok(
    await injectRoute(platform.app!, 'auth.login', {
      body: { account: DEMO_TENANT.adminUsername, password: DEMO_TENANT.adminPassword, agreement: true },
    }),
  ).token;
  const productId = ok(
    await injectRoute(platform.app!, 'product.create', { token, body: { name: 'meter', code: 'OTA-METER', type: 'direct' } }),
  ).id;
  for (let i = 0; i < DEVICES + 30; i++) sns.push(`OTA-${String(i).padStart(4, '0')}`);
  // The first device through the API; the rest in bulk as the device import creates them (1,000 one by one is too slow).
  const first = ok(
    await injectRoute(platform.app!, 'device.create', { token, body: { sn: sns[0]!, name: sns[0]!, productId, version: '1.0' } }),
  );
  fleet.add(sns[0]!, first.secret);
  tenantId = (await db.pool.query<{ tenant_id: string }>('select tenant_id from rm_devices where sn = $1', [sns[0]])).rows[0]!.tenant_id;
  const rest: NewDevice[] = sns.slice(1).map((sn) => {
    const { secret, hash } = newDeviceSecret();
    fleet.add(sn, secret);
    const location = { lng: null, lat: null, address: null };
    const fields = { name: sn, productId, modelVersion: 0, nodeType: 'direct' as const, groupId: null, gatewayId: null, location };
    return { deviceId: randomUUID(), sn, ...fields, version: '1.0', tags: [], remark: null, secretHash: hash };
  });
  for (let i = 0; i < rest.length; i += 250) {
    const outcomes = await createDevices(platform.context, { tenantId, actor: { kind: 'user', id: 'test' } }, rest.slice(i, i + 250));
    expect(outcomes.filter((o) => o.outcome !== 'created')).toEqual([]);
  }
  await platform.runner.catchUp();
  for (let i = 0; i < sns.length; i += 50) await Promise.all(sns.slice(i, i + 50).map((sn) => fleet.connect(sn)));
}, 600_000);
afterAll(async () => {
  await fleet?.closeAll();
  await platform?.stop();
  await db?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('an OTA rollout over MQTT devices', { timeout: ROLLOUT_MS }, () => {
  it('runs in waves, pauses offline devices until they reconnect, pauses and resumes, and stops on the failure rate', async () => {
    const size = DEVICES / 5;
    const fleetOf = sns.slice(0, DEVICES);
    const wave = (n: number) => fleetOf.slice((n - 1) * size, n * size);
    const script = (list: string[], s: Script) => list.forEach((sn) => fleet.scripts.set(sn, s));
    // Wave 1: 30 % fail (not past the 30 % threshold). Wave 2: two devices drop off mid-download. Wave 4: 40 % fail.
    script(wave(1).slice(0, (size * 3) / 10), 'fail');
    script(wave(2).slice(0, 2), 'offline');
    script(wave(3), 'hold');
    script(wave(4).slice(0, (size * 4) / 10), 'fail');

    const id = await create({
      name: 'meters to 2.0',
      fileId: 'fw-2.0',
      target: {
        kind: 'devices',
        deviceIds: (await db.pool.query<{ id: string }>('select id from rm_devices where sn = any($1)', [fleetOf])).rows.map((r) => r.id),
      },
      waves: { size, pauseSec: 0, failurePercent: 30 },
    });

    // Wave 2's dropped devices are paused while away, the wave waits for them; back, they get the offer again.
    await waitLong('the dropped devices paused', async () => {
      const s = await statusBySn(id);
      return wave(2)
        .slice(0, 2)
        .every((sn) => s[sn] === 'pause');
    });
    expect((await detail(id)).wave).toBe(2);
    for (const sn of wave(2).slice(0, 2)) await fleet.connect(sn);

    // Wave 3 holds mid-download: the operator pauses the task; the wave in flight finishes, no wave 4 starts.
    await waitLong('wave 3 held', () => wave(3).every((sn) => fleet.held(sn)));
    ok(await injectRoute(platform.app!, 'otaTask.pause', { token, body: { id } }));
    expect((await detail(id)).status).toBe('pause');
    for (const sn of wave(3)) fleet.release(sn);
    await waitLong('wave 3 settled', async () => (await detail(id)).waveCounts.find((w) => w.wave === 3)?.counts.success === size);
    await waitLong(
      'the ticker past wave 3',
      async () => (await db.pool.query(`select 1 from rm_ota_tasks where id = $1 and next_wave_at is not null`, [id])).rowCount === 1,
    );
    const paused = await detail(id);
    expect([paused.status, paused.wave]).toEqual(['pause', 3]);

    ok(await injectRoute(platform.app!, 'otaTask.resume', { token, body: { id } }));
    const ended = async () => {
      const t = await detail(id);
      return t.status === 'fail' ? t : null;
    };
    const done = await waitLong('the task to end', ended, ROLLOUT_MS / 2);
    expect(done.reason).toBe('wave 4: 40% failed');
    expect(done.waveCounts.map((w) => [w.wave, w.counts.success, w.counts.fail, w.counts.nonExecution])).toEqual([
      [1, size - (size * 3) / 10, (size * 3) / 10, 0],
      [2, size, 0, 0],
      [3, size, 0, 0],
      [4, size - (size * 4) / 10, (size * 4) / 10, 0],
      [5, 0, 0, size],
    ]);
    // The dropped devices were offered twice; every upgraded device shows its new version in the device list.
    expect(
      wave(2)
        .slice(0, 2)
        .map((sn) => fleet.offers.get(sn)),
    ).toEqual([2, 2]);
    const listed = ok(await injectRoute(platform.app!, 'device.list', { token, query: { sn: wave(3)[0], pageSize: 10 } }));
    expect(listed.rows[0]!.version).toBe('2.0');
    // Nobody is left executing or paused.
    const rows = await devicesOf(id);
    expect(rows.filter((d) => d.status === 'executing' || d.status === 'pause')).toEqual([]);
    // A settled device shows where it ended, not the last stage it reported (issue 21: done at 100% showed "downloading").
    const endings = (status: string) => [...new Set(rows.filter((d) => d.status === status).map((d) => `${d.stage} ${d.percent}`))];
    expect(endings('success')).toEqual(['done 100']);
    expect(rows.filter((d) => d.status === 'fail').every((d) => d.stage === 'failed')).toBe(true);
  });

  it('cancels a running rollout: devices mid-download are cancelled, and nothing is offered or served after', async () => {
    const fleetOf = sns.slice(DEVICES + 20);
    const [upgraded, held, later] = [fleetOf.slice(0, 2), fleetOf.slice(2, 5), fleetOf.slice(5)];
    held.forEach((sn) => fleet.scripts.set(sn, 'hold'));
    const idsOf = async (list: string[]) =>
      (await db.pool.query<{ id: string }>('select id from rm_devices where sn = any($1)', [list])).rows.map((r) => r.id);
    const id = await create({
      name: 'cancelled to 2.0',
      fileId: 'fw-2.0',
      target: { kind: 'devices', deviceIds: await idsOf(fleetOf) },
      waves: { size: 5, pauseSec: 0, failurePercent: 50 },
    });
    await waitLong('wave 1 mid-download', async () => {
      const s = await statusBySn(id);
      return held.every((sn) => fleet.held(sn) && s[sn] === 'executing') && upgraded.every((sn) => s[sn] === 'success');
    });
    const link = (sn: string) => fleet.links.get(sn)!.replace('localhost', '127.0.0.1');
    const fetchStatus = async (sn: string) => (await fetch(link(sn), { headers: { range: 'bytes=0-9' } })).status;
    expect(await fetchStatus(held[0]!)).not.toBe(403);

    ok(await injectRoute(platform.app!, 'otaTask.cancel', { token, body: { id } }));
    await waitLong('the held devices cancelled', async () => {
      const s = await statusBySn(id);
      return held.every((sn) => s[sn] === 'cancel');
    });
    // Their links are refused at once, though each was good a moment ago.
    expect(await Promise.all(held.map(fetchStatus))).toEqual([403, 403, 403]);
    // They go on and report done: the platform takes the reports (acknowledged) and changes nothing.
    held.forEach((sn) => fleet.release(sn));
    await waitLong('the held devices reported done', () => held.every((sn) => fleet.done.has(sn)));
    // A later rollout to one of wave 2's devices runs to its end: the cancelled task offered nothing meanwhile.
    const next = await create({
      name: 'after the cancel',
      fileId: 'fw-2.0',
      target: { kind: 'devices', deviceIds: await idsOf(later.slice(0, 1)) },
      waves: { size: 5, pauseSec: 0, failurePercent: 50 },
    });
    await waitLong('the later rollout to succeed', async () => (await detail(next)).status === 'success');
    await platform.runner.catchUp();

    const cancelled = await detail(id);
    expect([cancelled.status, cancelled.wave]).toEqual(['cancel', 1]);
    expect(await statusBySn(id)).toEqual(
      Object.fromEntries([
        ...upgraded.map((sn) => [sn, 'success']),
        ...held.map((sn) => [sn, 'cancel']),
        ...later.map((sn) => [sn, 'cancel']),
      ]),
    );
    expect(later.map((sn) => fleet.offers.get(sn) ?? 0)).toEqual([1, 0, 0, 0, 0]);
  });

  it('loses no device state when the platform restarts mid-rollout', async () => {
    const rest = sns.slice(DEVICES, DEVICES + 20);
    rest.slice(5, 10).forEach((sn) => fleet.scripts.set(sn, 'hold'));
    const id = await create({
      name: 'the rest to 2.0',
      fileId: 'fw-2.0',
      target: {
        kind: 'devices',
        deviceIds: (await db.pool.query<{ id: string }>('select id from rm_devices where sn = any($1)', [rest])).rows.map((r) => r.id),
      },
      waves: { size: 5, pauseSec: 0, failurePercent: 50 },
    });
    await waitLong(
      'wave 2 held mid-download',
      async () => rest.slice(5, 10).every((sn) => fleet.held(sn)) && (await statusBySn(id))[rest[9]!] === 'executing',
    );
    const before = await statusBySn(id);

    await platform.stop();
    platform = await start();
    // Every device as it was; one still upgrading may since be paused, its connection gone with the old process.
    const after = await statusBySn(id);
    for (const sn of rest) expect([before[sn], ...(before[sn] === 'executing' ? ['pause'] : [])]).toContain(after[sn]);
    expect((await devicesOf(id)).filter((d) => rest.slice(5, 10).includes(d.sn)).map((d) => [d.stage, d.percent])).toEqual(
      Array(5).fill(['downloading', 40]),
    );
    expect((await detail(id)).wave).toBe(2);

    // The devices reconnect to the new process and finish; the rollout goes on from where it was.
    for (const sn of rest) await fleet.connect(sn);
    for (const sn of rest.slice(5, 10)) fleet.release(sn);
    const done = await waitLong('the task to succeed', async () => {
      const t = await detail(id);
      return t.status === 'success' ? t : null;
    });
    expect(done.counts).toMatchObject({ total: 20, success: 20, fail: 0 });
  });
});
