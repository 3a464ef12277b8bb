import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStatScheduler } from '@iot/projections/stat/scheduler.ts';
import { ok, refusal } from '../harness/api.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * Statistic tasks through the routes on the embedded engines (issue 20): defined, checked against the thing
 * model, enabled after a confirm, computed at a cycle's end in ClickHouse, and read back through statResult.
 */
let sut: TestPlatform;
let token: string;
let productId: string;
const deviceIds: string[] = [];

const task = (more: Record<string, unknown> = {}) => ({
  name: 'Hourly energy',
  dataType: 'deviceData',
  productId,
  attribute: 'energy',
  statType: 'sum',
  cycle: '1h',
  dimension: 'device',
  ...more,
});

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'sierra', name: 'sierraCo', adminUsername: 'sierraAdmin', adminPassword: 'Sierra#pw1' });
  token = await sut.login('sierraAdmin', 'Sierra#pw1');
  productId = ok(await sut.call('product.create', { token, body: { name: 'Meter', code: 'STM', type: 'direct' } })).id;
  const energy = { type: 'property', name: '电量', identifier: 'energy', dataType: { type: 'float', min: 0, max: 1e6 } };
  ok(await sut.call('product.defineFunction', { token, body: { productId, function: energy } }));
  ok(await sut.call('product.publish', { token, body: { id: productId } }));
  for (const sn of ['STM-1', 'STM-2']) deviceIds.push(ok(await sut.call('device.create', { token, body: { sn, name: sn, productId } })).id);
  await sut.platform.runner.catchUp();
}, 120_000);
afterAll(async () => sut?.stop());

describe('statistic tasks', () => {
  it('refuses an attribute the thing model lacks and a value fold over alarms', async () => {
    expect(refusal(await sut.call('statTask.create', { token, body: task({ attribute: 'humidity' }) }))).toBe('NOT_A_PROPERTY');
    expect(refusal(await sut.call('statTask.create', { token, body: task({ dataType: 'alarm', statType: 'avg' }) }))).toBe(
      'STAT_TYPE_UNFIT',
    );
  });

  it('is created stopped, enabled, computed at the end of its hour and read back per device', async () => {
    const { id } = ok(await sut.call('statTask.create', { token, body: task() }));
    expect(ok(await sut.call('statTask.detail', { token, query: { id } }))).toMatchObject({ status: 'stopped', timeZone: 'Asia/Shanghai' });
    ok(await sut.call('statTask.status', { token, body: { id, status: 'enabled' } }));
    const listed = ok(await sut.call('statTask.list', { token, query: { status: 'enabled' } }));
    expect(listed.rows.map((r) => r.id)).toEqual([id]);

    const [d1, d2] = deviceIds as [string, string];
    const at = (deviceId: string, ts: string, value: number) => ({
      tenantId: 'sierra',
      deviceId,
      variable: 'energy',
      ts: new Date(ts),
      value,
      text: null,
    });
    await sut.platform.timeseries!.insertTelemetry([
      at(d1, '2026-03-02T03:05:00Z', 1),
      at(d1, '2026-03-02T03:35:00Z', 2),
      at(d2, '2026-03-02T03:50:00Z', 5),
      // The next hour: not computed yet.
      at(d1, '2026-03-02T04:00:10Z', 100),
    ]);
    const scheduler = createStatScheduler({ db: sut.platform.context.db, timeseries: sut.platform.timeseries! });
    expect(await scheduler.tick(new Date('2026-03-02T03:59:30Z'), new Date('2026-03-02T04:00:30Z'))).toContain(id);

    const results = ok(
      await sut.call('statResult.list', { token, query: { taskId: id, from: '2026-03-02T00:00:00Z', to: '2026-03-03T00:00:00Z' } }),
    );
    expect(results).toEqual(
      [
        { windowStart: '2026-03-02T03:00:00.000Z', key: d1, value: 3, samples: 2 },
        { windowStart: '2026-03-02T03:00:00.000Z', key: d2, value: 5, samples: 1 },
      ].sort((a, b) => a.key.localeCompare(b.key)),
    );

    ok(await sut.call('statTask.delete', { token, query: { id } }));
    await sut.platform.runner.catchUp();
    const stored = {
      tenantId: 'sierra',
      taskId: id,
      from: new Date('2026-03-02T00:00:00Z'),
      to: new Date('2026-03-03T00:00:00Z'),
      limit: 10,
    };
    expect(await sut.platform.timeseries!.statResults(stored)).toEqual([]);
    expect(refusal(await sut.call('statTask.detail', { token, query: { id } }))).toBe('NOT_FOUND');
    expect(
      refusal(
        await sut.call('statResult.list', { token, query: { taskId: id, from: '2026-03-02T00:00:00Z', to: '2026-03-03T00:00:00Z' } }),
      ),
    ).toBe('NOT_FOUND');
  });
});
