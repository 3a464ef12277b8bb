import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbTimeSeriesStore } from '@iot/infra/timeseries/chdb.ts';
import { createTimeSeriesStore, type TelemetryRow, type TimeSeriesStore } from '@iot/infra/timeseries/index.ts';
import { ClickHouseServerTimeSeriesStore } from '@iot/infra/timeseries/server.ts';

/** One adapter under test: `open` may be called again after `close` on the same storage. */
interface Subject {
  open(): TimeSeriesStore;
  cleanup(): void;
}

const FIVE_MINUTES = 5 * 60_000;
const start = new Date('2026-03-01T00:00:00.000Z');
const at = (i: number): Date => new Date(start.getTime() + i * FIVE_MINUTES);
const hour = (h: number): Date => new Date(start.getTime() + h * 3_600_000);

function contract(name: string, subject: () => Subject): void {
  describe(`TimeSeriesStore contract: ${name}`, () => {
    let env: Subject;
    let sut: TimeSeriesStore;
    // Fresh tenants per run, so the suite also holds against a shared server that keeps old data.
    const run = randomUUID().slice(0, 8);
    const tenantA = `tenant-a-${run}`;
    const tenantB = `tenant-b-${run}`;

    // Tenant A: d1 and d2 sample `temp` every 5 minutes for 2 hours (value = sample index on d1);
    // d1 also reports a text `status`. Tenant B uses the same device id with other values.
    const tempA: TelemetryRow[] = Array.from({ length: 24 }, (_, i) => ({
      tenantId: tenantA,
      deviceId: 'd1',
      productId: 'meter',
      variable: 'temp',
      ts: at(i),
      value: i,
      text: null,
    }));
    const tempA2: TelemetryRow[] = Array.from({ length: 24 }, (_, i) => ({
      tenantId: tenantA,
      deviceId: 'd2',
      variable: 'temp',
      ts: at(i),
      value: 100 + (i % 3),
      text: null,
    }));
    const statusA: TelemetryRow[] = ['on', 'off', 'on'].map((text, i) => ({
      tenantId: tenantA,
      deviceId: 'd1',
      variable: 'status',
      ts: new Date(at(i * 4).getTime() + 123),
      value: null,
      text,
      quality: i === 2 ? 'uncertain' : 'good',
      raw: `0x0${i}`,
    }));
    const tempB: TelemetryRow[] = Array.from({ length: 6 }, (_, i) => ({
      tenantId: tenantB,
      deviceId: 'd1',
      variable: 'temp',
      ts: at(i),
      value: -1000 - i,
      text: null,
    }));

    beforeAll(async () => {
      env = subject();
      sut = env.open();
      await sut.migrate();
      await sut.migrate();
      // Shuffled and split into concurrent calls: order must come from the store, not the insert.
      await Promise.all([
        sut.insertTelemetry([...tempA].reverse()),
        sut.insertTelemetry(tempB),
        sut.insertTelemetry(statusA),
        ...tempA2.map((row) => sut.insertTelemetry([row])),
      ]);
    });

    afterAll(async () => {
      await sut?.close();
      env?.cleanup();
    });

    it('reports healthy', async () => {
      const health = await sut.health();
      expect(health).toMatchObject({ ok: true, engine: sut.engine });
      expect(health.version).toMatch(/^\d+\./);
    });

    it('pages history in time order', async () => {
      const query = {
        tenantId: tenantA,
        deviceId: 'd1',
        variable: 'temp',
        from: start,
        to: hour(2),
        limit: 10,
      };
      const pages = await Promise.all([0, 10, 20].map((offset) => sut.queryHistory({ ...query, offset })));

      expect(pages.map((page) => page.rows.length)).toEqual([10, 10, 4]);
      expect(pages.every((page) => page.total === 24)).toBe(true);
      expect(pages.flatMap((page) => page.rows)).toEqual(
        tempA.map((row) => ({
          ...row,
          productId: 'meter',
          quality: 'good',
          raw: null,
        })),
      );
    });

    it('pages history newest first when asked, and bounds it by [from, to)', async () => {
      const page = await sut.queryHistory({
        tenantId: tenantA,
        deviceId: 'd1',
        variable: 'temp',
        from: hour(1),
        to: at(20),
        limit: 3,
        offset: 0,
        order: 'desc',
      });
      expect(page.total).toBe(8);
      expect(page.rows.map((row) => row.value)).toEqual([19, 18, 17]);
    });

    it('keeps milliseconds, text, quality and raw', async () => {
      const page = await sut.queryHistory({
        tenantId: tenantA,
        deviceId: 'd1',
        variable: 'status',
        from: start,
        to: hour(2),
        limit: 10,
        offset: 0,
      });
      expect(page.rows).toEqual(statusA.map((row) => ({ ...row, productId: null })));
    });

    it('never shows one tenant the rows of another, even for the same device id', async () => {
      const query = {
        deviceId: 'd1',
        variable: 'temp',
        from: start,
        to: hour(2),
        limit: 100,
        offset: 0,
      };
      const ofB = await sut.queryHistory({ ...query, tenantId: tenantB });
      const ofA = await sut.queryHistory({ ...query, tenantId: tenantA });
      const ofNobody = await sut.queryHistory({
        ...query,
        tenantId: `tenant-c-${run}`,
      });

      expect(ofB.rows.map((row) => row.value)).toEqual([-1000, -1001, -1002, -1003, -1004, -1005]);
      expect(ofB.rows.every((row) => row.tenantId === tenantB)).toBe(true);
      expect(ofA.rows.some((row) => (row.value ?? 0) < 0)).toBe(false);
      expect(ofNobody).toEqual({ rows: [], total: 0 });

      const aggregateB = await sut.aggregate({
        tenantId: tenantB,
        variable: 'temp',
        from: start,
        to: hour(2),
        bucket: '1d',
        fn: 'count',
      });
      expect(aggregateB).toEqual([{ deviceId: 'd1', bucket: start, value: 6 }]);
      const latestB = await sut.latest({
        tenantId: tenantB,
        deviceIds: ['d1', 'd2'],
      });
      expect(latestB.map((row) => [row.deviceId, row.variable, row.value])).toEqual([['d1', 'temp', -1005]]);
    });

    it('aggregates per bucket with every statistic', async () => {
      const base = {
        tenantId: tenantA,
        deviceIds: ['d1'],
        variable: 'temp',
        from: start,
        to: hour(2),
      } as const;
      const perHour = async (fn: Parameters<TimeSeriesStore['aggregate']>[0]['fn']) =>
        (await sut.aggregate({ ...base, bucket: '1h', fn })).map((point) => point.value);

      // d1 holds 0..11 in the first hour and 12..23 in the second.
      expect(await perHour('avg')).toEqual([5.5, 17.5]);
      expect(await perHour('sum')).toEqual([66, 210]);
      expect(await perHour('min')).toEqual([0, 12]);
      expect(await perHour('max')).toEqual([11, 23]);
      expect(await perHour('count')).toEqual([12, 12]);
      expect(await perHour('first')).toEqual([0, 12]);
      expect(await perHour('last')).toEqual([11, 23]);
      expect(await perHour('diff')).toEqual([11, 11]);
      expect(await perHour('distinctCount')).toEqual([12, 12]);

      const halfHours = await sut.aggregate({
        ...base,
        bucket: '30m',
        fn: 'count',
      });
      expect(halfHours.map((point) => [point.bucket.toISOString(), point.value])).toEqual([
        ['2026-03-01T00:00:00.000Z', 6],
        ['2026-03-01T00:30:00.000Z', 6],
        ['2026-03-01T01:00:00.000Z', 6],
        ['2026-03-01T01:30:00.000Z', 6],
      ]);
    });

    it('answers a range on whole 5-minute or hour steps from the rollups with the same figures as from the raw samples', async () => {
      // A range one millisecond wider on each side holds the same samples but is not on a rollup step: raw.
      for (const timeZone of ['UTC', 'Asia/Shanghai', 'Asia/Kolkata'])
        for (const bucket of ['15m', '1h', '1d'] as const)
          for (const fn of ['avg', 'sum', 'min', 'max', 'count', 'first', 'last', 'diff'] as const) {
            const query = { tenantId: tenantA, variable: 'temp', bucket, fn, timeZone };
            const rolled = await sut.aggregate({ ...query, from: start, to: hour(2) });
            const raw = await sut.aggregate({ ...query, from: new Date(start.getTime() - 1), to: new Date(hour(2).getTime() + 1) });
            expect(rolled, `${fn} per ${bucket} in ${timeZone}`).toEqual(raw);
            expect(rolled.length).toBeGreaterThan(0);
          }
    });

    it('aggregates every device of the tenant when no device is named, one series each', async () => {
      const points = await sut.aggregate({
        tenantId: tenantA,
        variable: 'temp',
        from: start,
        to: hour(2),
        bucket: '12h',
        fn: 'distinctCount',
      });
      expect(points).toEqual([
        { deviceId: 'd1', bucket: start, value: 24 },
        { deviceId: 'd2', bucket: start, value: 3 },
      ]);
    });

    it('aligns day, week and month buckets to the time zone asked for', async () => {
      const query = {
        tenantId: tenantA,
        deviceIds: ['d1'],
        variable: 'temp',
        from: start,
        to: hour(2),
        fn: 'sum',
      } as const;
      // 2026-03-01 00:00 UTC is 08:00 on Sunday 1 March in Shanghai.
      const day = await sut.aggregate({
        ...query,
        bucket: '1d',
        timeZone: 'Asia/Shanghai',
      });
      const week = await sut.aggregate({
        ...query,
        bucket: '1w',
        timeZone: 'Asia/Shanghai',
      });
      const month = await sut.aggregate({
        ...query,
        bucket: '1M',
        timeZone: 'Asia/Shanghai',
      });
      const monthUtc = await sut.aggregate({ ...query, bucket: '1M' });

      expect(day).toEqual([
        {
          deviceId: 'd1',
          bucket: new Date('2026-02-28T16:00:00.000Z'),
          value: 276,
        },
      ]);
      expect(week).toEqual([
        {
          deviceId: 'd1',
          bucket: new Date('2026-02-22T16:00:00.000Z'),
          value: 276,
        },
      ]);
      expect(month).toEqual([
        {
          deviceId: 'd1',
          bucket: new Date('2026-02-28T16:00:00.000Z'),
          value: 276,
        },
      ]);
      expect(monthUtc).toEqual([{ deviceId: 'd1', bucket: start, value: 276 }]);
    });

    it('gives the latest sample per device and variable', async () => {
      const latest = await sut.latest({
        tenantId: tenantA,
        deviceIds: ['d1', 'd2', 'unknown'],
      });
      expect(latest).toEqual([
        { ...statusA[2], productId: null },
        { ...tempA[23], productId: 'meter', quality: 'good', raw: null },
        { ...tempA2[23], productId: null, quality: 'good', raw: null },
      ]);
      const onlyTemp = await sut.latest({
        tenantId: tenantA,
        deviceIds: ['d1'],
        variables: ['temp'],
      });
      expect(onlyTemp.map((row) => row.value)).toEqual([23]);
    });

    it('keeps the data across close and reopen of the same storage', async () => {
      await sut.insertTelemetry([
        {
          tenantId: tenantA,
          deviceId: 'd3',
          variable: 'temp',
          ts: at(1),
          value: 42,
          text: null,
        },
      ]);
      await sut.close();
      sut = env.open();
      await sut.migrate();

      const page = await sut.queryHistory({
        tenantId: tenantA,
        deviceId: 'd3',
        variable: 'temp',
        from: start,
        to: hour(2),
        limit: 10,
        offset: 0,
      });
      expect(page.rows.map((row) => row.value)).toEqual([42]);
      const all = await sut.queryHistory({
        tenantId: tenantA,
        deviceId: 'd1',
        variable: 'temp',
        from: start,
        to: hour(2),
        limit: 0,
        offset: 0,
      });
      expect(all.total).toBe(24);
    });
  });
}

contract('chDB (embedded)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'timeseries-contract-'));
  return {
    open: () => createTimeSeriesStore({ dataDir }),
    cleanup: () => rmSync(dataDir, { recursive: true, force: true }),
  };
});

const clickhouseUrl = process.env.CLICKHOUSE_URL;
if (clickhouseUrl) {
  contract('ClickHouse server (CLICKHOUSE_URL)', () => ({
    open: () => createTimeSeriesStore({ clickhouseUrl, dataDir: tmpdir() }),
    cleanup: () => {},
  }));
} else {
  describe.skip('TimeSeriesStore contract: ClickHouse server (CLICKHOUSE_URL is not set; no usable server installs here)', () => {
    it('needs CLICKHOUSE_URL', () => {});
  });
}

describe('chDB ownership', () => {
  it('refuses a second owner in the same process, and frees the slot on close', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'timeseries-owner-'));
    const first = new ChdbTimeSeriesStore({ path: join(dataDir, 'one') });
    try {
      expect(() => new ChdbTimeSeriesStore({ path: join(dataDir, 'two') })).toThrow(/already open in this process/);
      await first.close();
      const second = new ChdbTimeSeriesStore({ path: join(dataDir, 'one') });
      await second.close();
    } finally {
      await first.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('picks the server adapter when a URL is given', async () => {
    const sut = createTimeSeriesStore({
      clickhouseUrl: 'http://127.0.0.1:1',
      dataDir: tmpdir(),
    });
    expect(sut).toBeInstanceOf(ClickHouseServerTimeSeriesStore);
    expect(sut.engine).toBe('clickhouse');
    await sut.close();
  });
});
