import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@iot/infra/config.ts';
import { DEMO_TENANT, startPlatform, type Platform } from '@iot/infra/platform.ts';
import { freePort } from '../harness/free-port.ts';
import { ok } from '../harness/api.ts';
import { injectRoute } from '../harness/inject.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';

/** A fresh start seeds the demo data; a second start on the same data keeps it and seeds nothing twice. */
describe('starting twice on the same data', () => {
  let db: TestDatabase;
  let dataDir: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'dc-restart-'));
  });
  afterAll(async () => {
    await db?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const start = async () =>
    startPlatform(
      loadConfig({
        DATABASE_URL: db.url,
        DATA_DIR: dataDir,
        DEMO_DATA: 'true',
        // The simulator's presence events would make the two starts' logs differ (it has a test of its own).
        DEMO_FLEET: '0',
        ADMIN_PASSWORD: 'admin123',
        MQTT_PORT: String(await freePort()),
      }),
      { port: 0, staticDir: null, logger: pino({ level: 'silent' }) },
    );
  const login = async (platform: Platform, account: string, password: string) =>
    injectRoute(platform.app!, 'auth.login', { body: { account, password, agreement: true } });

  it('logs the demo users in after each start, with the same events and no duplicates', async () => {
    const first = await start();
    expect(first.demo).toBe(true);
    const token = ok(await login(first, DEMO_TENANT.adminUsername, DEMO_TENANT.adminPassword)).token;
    expect(ok(await injectRoute(first.app!, 'group.list', { token })).total).toBe(5);
    expect((await login(first, 'demo_operator', DEMO_TENANT.adminPassword)).status).toBe(200);
    // The demo fleet: products with published thing models, 20 devices on a map around Shanghai, gateways with meters.
    const devices = ok(await injectRoute(first.app!, 'device.list', { token, query: { pageSize: 100 } }));
    expect(devices.total).toBe(20);
    for (const d of devices.rows) {
      expect(Math.abs(d.lng! - 121.47)).toBeLessThan(0.2);
      expect(Math.abs(d.lat! - 31.23)).toBeLessThan(0.2);
    }
    const products = ok(await injectRoute(first.app!, 'product.list', { token }));
    expect(products.rows.map((p: { code: string; status: string }) => `${p.code}:${p.status}`).sort()).toEqual([
      'GW-EDGE:published',
      'POWER-METER:published',
      'TH-SENSOR:published',
    ]);
    const gateways = ok(await injectRoute(first.app!, 'gateway.list', { token }));
    expect(gateways.rows.map((g: { subDeviceCount: number }) => g.subDeviceCount)).toEqual([3, 3]);
    expect(ok(await injectRoute(first.app!, 'template.list', { token })).rows[0]!.variables).toHaveLength(4);
    // The OTA screens: a firmware file, and a rollout of it to the twelve sensors, finished (the workflow settles them).
    const files = ok(await injectRoute(first.app!, 'file.list', { token }));
    expect(files.rows.map((f: { name: string; version: string | null }) => `${f.name}:${f.version}`)).toEqual(['sensor-fw-2.0.bin:2.0']);
    await first.runner.catchUp(30_000);
    const tasks = ok(await injectRoute(first.app!, 'otaTask.list', { token }));
    expect(tasks.rows).toHaveLength(1);
    expect(tasks.rows[0]).toMatchObject({ status: 'success', counts: { total: 12, success: 12 } });
    const events = (await db.pool.query<{ n: number }>('select count(*)::int as n from es_events')).rows[0]!.n;
    await first.stop();

    const second = await start();
    expect(second.generatedAdminPassword).toBeNull();
    expect((await login(second, 'admin', 'admin123')).status).toBe(200);
    expect((await login(second, 'demo_auditor', DEMO_TENANT.adminPassword)).status).toBe(200);
    expect((await db.pool.query<{ n: number }>('select count(*)::int as n from es_events')).rows[0]!.n).toBe(events);
    const users = await db.pool.query<{ username: string }>(`select username from rm_users where tenant_id = 'demo' order by username`);
    expect(users.rows.map((u) => u.username)).toEqual(['demo', 'demo_auditor', 'demo_operator']);
    await second.stop();
  });
});
