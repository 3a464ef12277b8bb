import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStatScheduler } from '@iot/projections/stat/scheduler.ts';
import { ok, refusal } from '../harness/api.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { waitFor } from '../harness/process.ts';

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
    // The list and detail name the product and the attribute as the thing model does, beside the identifier.
    expect(ok(await sut.call('statTask.detail', { token, query: { id } }))).toMatchObject({
      status: 'stopped',
      timeZone: 'Asia/Shanghai',
      productName: 'Meter',
      attribute: 'energy',
      attributeName: '电量',
    });
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

  it('backfills a new task over past data with progress, and cancels a long backfill midway, keeping what it computed', async () => {
    const { id } = ok(await sut.call('statTask.create', { token, body: task({ name: 'Daily energy', cycle: '1d' }) }));
    const [d1] = deviceIds as [string];
    // Three past days in Shanghai: 1, 2 and 3 March.
    await sut.platform.timeseries!.insertTelemetry(
      [
        ['2026-03-01T02:00:00Z', 1],
        ['2026-03-02T02:00:00Z', 2],
        ['2026-03-02T05:00:00Z', 3],
        ['2026-03-03T02:00:00Z', 4],
      ].map(([ts, value]) => ({
        tenantId: 'sierra',
        deviceId: d1,
        variable: 'energy',
        ts: new Date(ts as string),
        value: value as number,
        text: null,
      })),
    );
    const range = { from: '2026-02-28T16:00:00Z', to: '2026-03-03T16:00:00Z' };
    expect(refusal(await sut.call('statTask.backfill', { token, body: { id, from: range.to, to: range.from } }))).toBe('VALIDATION');
    expect(refusal(await sut.call('statTask.backfillCancel', { token, body: { id } }))).toBe('NOT_FOUND');
    ok(await sut.call('statTask.backfill', { token, body: { id, ...range } }));
    const detail = async () => ok(await sut.call('statTask.detail', { token, query: { id } })).backfill;
    expect(await detail()).toMatchObject({ from: '2026-02-28T16:00:00.000Z', to: '2026-03-03T16:00:00.000Z' });
    await waitFor('the backfill to finish', async () => (await detail())?.status === 'done', 60_000);
    expect(await detail()).toMatchObject({ status: 'done', progress: 1 });
    const results = ok(await sut.call('statResult.list', { token, query: { taskId: id, ...range } }));
    expect(results.filter((r) => r.key === d1).map((r) => [r.windowStart, r.value])).toEqual([
      ['2026-02-28T16:00:00.000Z', 1],
      // With the first test's samples of 2 March (1 + 2 + 100).
      ['2026-03-01T16:00:00.000Z', 108],
      ['2026-03-02T16:00:00.000Z', 4],
    ]);

    // A year of hourly windows, a day per chunk: cancelled once it has started, it stops short of the end.
    const hourly = ok(await sut.call('statTask.create', { token, body: task({ name: 'Hourly energy (year)' }) })).id;
    await sut.platform.timeseries!.insertTelemetry([
      { tenantId: 'sierra', deviceId: d1, variable: 'energy', ts: new Date('2025-03-04T01:30:00Z'), value: 7, text: null },
    ]);
    ok(await sut.call('statTask.backfill', { token, body: { id: hourly, from: '2025-03-04T00:00:00Z', to: '2026-03-04T00:00:00Z' } }));
    const hourlyBackfill = async () => ok(await sut.call('statTask.detail', { token, query: { id: hourly } })).backfill!;
    await waitFor('the year backfill to start', async () => (await hourlyBackfill()).progress > 0, 60_000);
    ok(await sut.call('statTask.backfillCancel', { token, body: { id: hourly } }));
    await sut.platform.runner.catchUp();
    expect((await hourlyBackfill()).status).toBe('cancelled');
    expect((await hourlyBackfill()).progress).toBeLessThan(1);
    // What it computed before the cancel stays: the first day's hour with a sample.
    const kept = ok(
      await sut.call('statResult.list', { token, query: { taskId: hourly, from: '2025-03-04T00:00:00Z', to: '2025-03-05T00:00:00Z' } }),
    );
    expect(kept).toEqual([{ windowStart: '2025-03-04T01:00:00.000Z', key: d1, value: 7, samples: 1 }]);
  });
});
