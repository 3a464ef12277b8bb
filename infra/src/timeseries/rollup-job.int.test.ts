import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ChdbTimeSeriesStore } from './chdb.ts';
import type { AggregateQuery, TelemetryRow } from './port.ts';
import { rollups, rollupSelect } from './schema.ts';

const tenantId = 'rollup';
const bucket = Date.UTC(2026, 2, 1, 10, 0);
const sample = (deviceId: string, offsetMs: number, value: number): TelemetryRow => ({
  tenantId,
  deviceId,
  variable: 'temp',
  ts: new Date(bucket + offsetMs),
  value,
  text: null,
});
/** The figures of the 5-minute bucket from 10:00 (the hour reads the 5-minute rollup for its 12 steps). */
const perHour = (deviceId: string, fn: AggregateQuery['fn']): AggregateQuery => ({
  tenantId,
  variable: 'temp',
  deviceIds: [deviceId],
  from: new Date(bucket),
  to: new Date(bucket + 3_600_000),
  bucket: '1h',
  fn,
});

describe('the rollup job (rollups off the insert path)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rollup-job-'));
  const path = join(dataDir, 'chdb');
  let sut: ChdbTimeSeriesStore | null = null;
  // No schedule: each test runs the job where it says so.
  const open = async (windowMs?: number) => {
    sut = new ChdbTimeSeriesStore({ path, rollups: { everyMs: 0, graceMs: 0, windowMs } });
    await sut.migrate();
    return sut;
  };
  const rows = async <Row>(query: string): Promise<Row[]> => (await sut!.client.query({ query, format: 'JSONEachRow' })).json<Row>();
  /** The 5-minute rollup table itself: samples counted and summed per device, all its rows of the device folded. */
  const rolled = async (deviceId: string) => {
    const [row] = await rows<{ n: string | number; total: number }>(
      `SELECT sum(cnt_s) AS n, sum(sum_s) AS total FROM telemetry_5m WHERE device_id = '${deviceId}'`,
    );
    return { n: Number(row?.n ?? 0), total: Number(row?.total ?? 0) };
  };
  const figures = async (deviceId: string) => ({
    count: (await sut!.aggregate(perHour(deviceId, 'count')))[0]?.value,
    sum: (await sut!.aggregate(perHour(deviceId, 'sum')))[0]?.value,
    last: (await sut!.aggregate(perHour(deviceId, 'last')))[0]?.value,
  });

  afterEach(async () => {
    await sut?.close();
    sut = null;
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('writes the raw table alone on insert; reads see the samples not yet rolled; the job rolls each once', async () => {
    const store = await open();
    await store.insertTelemetry([sample('fresh', 1_000, 1), sample('fresh', 2_000, 2)]);
    expect(await rolled('fresh')).toEqual({ n: 0, total: 0 });
    expect(await figures('fresh')).toEqual({ count: 2, sum: 3, last: 2 });
    await store.flushRollups();
    await store.flushRollups();
    expect(await rolled('fresh')).toEqual({ n: 2, total: 3 });
    expect(await figures('fresh')).toEqual({ count: 2, sum: 3, last: 2 });
  });

  it('adds a late sample to its bucket already rolled: the figures right, not doubled, before and after the next run', async () => {
    const store = await open();
    await store.insertTelemetry([sample('late', 60_000, 10), sample('late', 120_000, 20)]);
    await store.flushRollups();
    expect(await rolled('late')).toEqual({ n: 2, total: 30 });
    // Sampled inside the rolled bucket (and its last one), received after the run.
    await store.insertTelemetry([sample('late', 150_000, 5)]);
    expect(await figures('late')).toEqual({ count: 3, sum: 35, last: 5 });
    await store.flushRollups();
    expect(await rolled('late')).toEqual({ n: 3, total: 35 });
    expect(await figures('late')).toEqual({ count: 3, sum: 35, last: 5 });
    // The per-second counts too (the dashboard's data points and ingest rate): each sample once, rolled or not.
    const now = Date.now();
    const recent = (ageMs: number): TelemetryRow => ({ ...sample('counted', 0, 1), tenantId: 'rollup-counts', ts: new Date(now - ageMs) });
    const counts = () =>
      store.countSamples({ tenantId: 'rollup-counts', since: new Date(now - 3_600_000), recentSince: new Date(now - 60_000) });
    await store.insertTelemetry([recent(120_000), recent(30_000)]);
    expect(await counts()).toEqual({ since: 2, recent: 1 });
    await store.flushRollups();
    await store.insertTelemetry([recent(125_000)]);
    expect(await counts()).toEqual({ since: 3, recent: 1 });
    await store.flushRollups();
    expect(await counts()).toEqual({ since: 3, recent: 1 });
    const [counted] = await rows<{ n: string | number }>(`SELECT sum(n) AS n FROM telemetry_counts WHERE tenant_id = 'rollup-counts'`);
    expect(Number(counted?.n)).toBe(3);
  });

  it('resumes from its watermark after a restart: what was rolled is not rolled again, what was not is', async () => {
    let store = await open();
    await store.insertTelemetry([sample('restart', 10_000, 1)]);
    await store.flushRollups();
    await store.insertTelemetry([sample('restart', 20_000, 2)]);
    await store.close();

    store = await open();
    expect(await rolled('restart')).toEqual({ n: 1, total: 1 });
    expect(await figures('restart')).toEqual({ count: 2, sum: 3, last: 2 });
    // The next run rolls the second sample, not the first again.
    await store.flushRollups();
    expect(await rolled('restart')).toEqual({ n: 2, total: 3 });
    expect(await figures('restart')).toEqual({ count: 2, sum: 3, last: 2 });
  });

  it('repeats a run cut short between its inserts and its watermark under the same tokens: each sample once', async () => {
    const store = await open();
    await store.insertTelemetry([sample('cut', 30_000, 7)]);
    // What a run does before it is cut: its interval recorded, then its rollups' insert done for the 5-minute one only.
    const [now] = await rows<{ wm: string | number; to: string | number }>(
      `SELECT toUnixTimestamp64Milli(max(wm)) AS wm, toUnixTimestamp64Milli(now64(3)) AS to FROM telemetry_rolled`,
    );
    const [from, to] = [Number(now!.wm), Number(now!.to)];
    await store.client.command({
      query: `INSERT INTO telemetry_rolled (wm, next) VALUES (fromUnixTimestamp64Milli(${from}, 'UTC'), fromUnixTimestamp64Milli(${to}, 'UTC'))`,
    });
    // The run's one insert reached the 5-minute view and not the hourly one (its view away for a moment).
    await store.client.command({ query: 'DETACH TABLE telemetry_1h_fold' });
    await store.client.command({
      query: `INSERT INTO telemetry_rollup_feed SETTINGS insert_deduplicate = 1, insert_deduplication_token = 'rollup:telemetry_rollup_feed:${from}:${to}'
        ${rollupSelect('telemetry', rollups[0], `received_at >= fromUnixTimestamp64Milli(${from}, 'UTC') AND received_at < fromUnixTimestamp64Milli(${to}, 'UTC')`)}`,
    });
    await store.client.command({ query: 'ATTACH TABLE telemetry_1h_fold' });
    expect(await rolled('cut')).toEqual({ n: 1, total: 7 });
    await store.close();

    // The next run repeats [from, to): the 5-minute insert is dropped as a repeat, the hourly one made.
    await (await open()).flushRollups();
    expect(await rolled('cut')).toEqual({ n: 1, total: 7 });
    const [hourly] = await rows<{ n: string | number }>(`SELECT sum(cnt_s) AS n FROM telemetry_1h WHERE device_id = 'cut'`);
    expect(Number(hourly?.n)).toBe(1);
    const [mark] = await rows<{ wm: string | number }>(`SELECT toUnixTimestamp64Milli(max(wm)) AS wm FROM telemetry_rolled`);
    // The flush rolls on past the repeated interval (to its own start): nothing after `to` was received.
    expect(Number(mark?.wm)).toBeGreaterThanOrEqual(to);
    expect(await figures('cut')).toEqual({ count: 1, sum: 7, last: 7 });
  });

  it("the job's owner starts a run from the watermark it wrote, and repeats a run that failed half way from _rolled", async () => {
    // The owner: a schedule (too slow to fire during the test), so its runs after the first start from its own watermark.
    sut = new ChdbTimeSeriesStore({ path, rollups: { everyMs: 3_600_000, graceMs: 0 } });
    await sut.migrate();
    const job = sut.rollupJob!;
    await sut.insertTelemetry([sample('owner', 40_000, 1)]);
    // A scheduled run rolls the interval its predecessor recorded as it ended: a sample received since, the run after.
    await job.run(false);
    expect(await rolled('owner')).toEqual({ n: 0, total: 0 });
    await job.run(false);
    expect(await rolled('owner')).toEqual({ n: 1, total: 1 });
    const reads = job.statements.get('watermark')?.count;

    // A run that fails rolling an interval with a sample in it (the hourly table gone for a moment).
    await sut.insertTelemetry([sample('owner', 41_000, 2)]);
    await job.run(false);
    await sut.client.command({ query: 'RENAME TABLE telemetry_1h TO telemetry_1h_away' });
    await expect(job.run(false)).rejects.toThrow();
    await sut.client.command({ query: 'RENAME TABLE telemetry_1h_away TO telemetry_1h' });
    expect(job.statements.get('watermark')?.count).toBe(reads);

    // The next run reads its interval from _rolled and repeats it under the same tokens; the one after rolls the rest.
    await sut.insertTelemetry([sample('owner', 42_000, 4)]);
    await job.run(false);
    expect(await rolled('owner')).toEqual({ n: 2, total: 3 });
    await job.run(false);
    expect(await rolled('owner')).toEqual({ n: 3, total: 7 });
    const [hourly] = await rows<{ n: string | number }>(`SELECT sum(cnt_s) AS n FROM telemetry_1h WHERE device_id = 'owner'`);
    expect(Number(hourly?.n)).toBe(3);
    expect(job.statements.get('watermark')?.count).toBe(reads! + 1);
    // One row in _rolled a run: only the first run (at start) recorded its own interval.
    expect(job.statements.get('interval')?.count).toBe(1);
  });

  it('rolls a backlog in bounded windows: a sample received on a window boundary is rolled once, none is dropped', async () => {
    // Windows of 10 ms of receipt time, each from the first sample after the watermark: [w+1, w+11), [w+11, w+21)...
    const store = await open(10);
    // No interval left recorded by the tests before (a flush ends with none): the windows start at the watermark.
    await store.flushRollups();
    const [mark] = await rows<{ wm: string | number }>(`SELECT toUnixTimestamp64Milli(max(wm)) AS wm FROM telemetry_rolled`);
    const w = Number(mark!.wm);
    const offsets = [1, 10, 11, 20, 21, 30, 31, 40];
    const ts = Date.now() - 60_000;
    await store.client.command({
      query: `INSERT INTO telemetry (tenant_id, device_id, variable, ts, value, received_at) VALUES ${offsets
        .map(
          (at, i) =>
            `('rollup-window', 'window', 'temp', fromUnixTimestamp64Milli(${ts + i}, 'UTC'), ${at}, fromUnixTimestamp64Milli(${w + at}, 'UTC'))`,
        )
        .join(', ')}`,
    });
    // Every sample received in the past, so the flush is due all of them.
    while (Number((await rows<{ now: string | number }>(`SELECT toUnixTimestamp64Milli(now64(3)) AS now`))[0]!.now) <= w + 50);
    const total = offsets.reduce((sum, at) => sum + at, 0);
    const day = (fn: AggregateQuery['fn']): AggregateQuery => ({
      tenantId: 'rollup-window',
      variable: 'temp',
      deviceIds: ['window'],
      from: new Date(Math.floor(ts / 3_600_000) * 3_600_000),
      to: new Date(Math.floor(ts / 3_600_000) * 3_600_000 + 2 * 3_600_000),
      bucket: '1h',
      fn,
    });
    const read = async () => ({
      count: (await store.aggregate(day('count'))).reduce((sum, row) => sum + (row.value ?? 0), 0),
      sum: (await store.aggregate(day('sum'))).reduce((sum, row) => sum + (row.value ?? 0), 0),
      samples: (await store.countSamples({ tenantId: 'rollup-window', since: new Date(ts - 60_000), recentSince: new Date(ts - 60_000) }))
        .since,
    });
    const expected = { count: offsets.length, sum: total, samples: offsets.length };
    expect(await read()).toEqual(expected);

    const before = store.rollupJob!.runs.count;
    await store.flushRollups();
    // One run per window (four with samples), not one run over the whole backlog.
    expect(store.rollupJob!.runs.count - before).toBeGreaterThanOrEqual(4);
    for (const suffix of ['5m', '1h']) {
      const [rolledRow] = await rows<{ n: string | number; total: number }>(
        `SELECT sum(cnt_s) AS n, sum(sum_s) AS total FROM telemetry_${suffix} WHERE device_id = 'window'`,
      );
      expect({ suffix, n: Number(rolledRow?.n), total: Number(rolledRow?.total) }).toEqual({ suffix, n: offsets.length, total });
    }
    const [counted] = await rows<{ n: string | number }>(`SELECT sum(n) AS n FROM telemetry_counts WHERE tenant_id = 'rollup-window'`);
    expect(Number(counted?.n)).toBe(offsets.length);
    expect(await read()).toEqual(expected);
  });
});
