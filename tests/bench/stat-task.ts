import { statfs } from 'node:fs/promises';
import type { StatComputation } from '@iot/contracts/ports/timeseries.ts';
import type { ClickHouseTimeSeriesStore } from '@iot/infra/timeseries/clickhouse.ts';
import { STAT_RESULTS_TABLE, statInsertSql, statParams, statRollupFor } from '@iot/infra/timeseries/stat.ts';
import { statTaskById } from '@iot/projections/stat/read.ts';
import { createStatScheduler } from '@iot/projections/stat/scheduler.ts';
import { benchTenantApi, startBenchPlatform } from './bare.ts';
import type { Figure } from './figure.ts';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 10_000);
/** Samples per device over the day: 10,000 devices × 10,000 is the 100 million (a sample every 8.64 s). */
const PER_DEVICE = Number(process.env.BENCH_STAT_SAMPLES ?? 10_000);
const RUNS = 5;
/** 1,000 devices × 10,000 samples: 10 million rows an insert; chDB reads `numbers()` in blocks, so memory stays bounded. */
const DEVICES_PER_INSERT = Math.max(1, Math.floor(10_000_000 / PER_DEVICE));
/** The bench's bounds: it refuses to start without this much disk per sample, and stops if making the samples takes longer. */
const BYTES_PER_ROW_BOUND = 40;
const MAX_GENERATION_S = Number(process.env.BENCH_STAT_MAX_GENERATION_S ?? 1_800);
/** How long the bench waits for chDB to merge the parts the samples were stored in (a day's worth stored at once). */
const MAX_SETTLE_S = 600;
const say = (what: string) => process.stderr.write(`stat-task: ${what}\n`);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * `stat-task` (issue 20): one statistic task (hourly average per device) over one day of N devices' samples in
 * Shanghai, run as the scheduler runs it (the task read from its read model, the run through the port, folded from the
 * hourly rollup), against the same `INSERT … SELECT` sent straight to chDB. Seconds, median of five runs each.
 * Goal: at least 0.8× the direct run, and under 2 s. The samples (100 million by default) are made inside chDB;
 * bounds: `BYTES_PER_ROW_BOUND` of free disk, `MAX_GENERATION_S` to make them; the folder is removed at the end.
 */
export async function benchStatTask(): Promise<Figure[]> {
  const bench = await startBenchPlatform('stat-task');
  const { platform } = bench;
  try {
    const { call } = await benchTenantApi(platform);
    const store = platform.timeseries as ClickHouseTimeSeriesStore;
    // 1 October 2026 in Shanghai.
    const from = new Date('2026-09-30T16:00:00Z');
    const to = new Date('2026-10-01T16:00:00Z');
    const total = DEVICES * PER_DEVICE;
    const free = await statfs(bench.dir);
    const needBytes = total * BYTES_PER_ROW_BOUND;
    if (free.bavail * free.bsize < needBytes)
      throw new Error(`stat-task needs about ${Math.round(needBytes / 2 ** 30)} GB free under ${bench.dir}; it has less`);
    const insertStarted = performance.now();
    const deadline = insertStarted + MAX_GENERATION_S * 1000;
    // Made inside chDB, a chunk of devices per insert (whole days of samples, so that the rollup job folds each
    // device's hours once); a sample every 86,400,000 / PER_DEVICE ms, shifted by the device so that devices differ.
    for (let first = 0; first < DEVICES; first += DEVICES_PER_INSERT) {
      if (performance.now() > deadline) throw new Error(`stat-task: making the samples took over ${MAX_GENERATION_S} s`);
      const count = Math.min(DEVICES_PER_INSERT, DEVICES - first);
      await store.client.command({
        query: `INSERT INTO ${store.table} (tenant_id, device_id, variable, ts, value)
          SELECT 'bench', concat('stat-', leftPad(toString(d), 5, '0')), 'temperature',
                 fromUnixTimestamp64Milli(toInt64({fromMs:Int64} + intDiv(n * 86400000, {perDevice:UInt64}) + d % 1000), 'UTC'),
                 20 + ((d + n) % 50) / 10
          FROM (SELECT {first:UInt64} + intDiv(number, {perDevice:UInt64}) AS d, number % {perDevice:UInt64} AS n
                FROM numbers({rows:UInt64}))`,
        query_params: { fromMs: from.getTime(), perDevice: PER_DEVICE, first, rows: count * PER_DEVICE },
      });
      await store.flushRollups();
      say(`${(first + count) * PER_DEVICE} samples made`);
    }
    const insertSeconds = (performance.now() - insertStarted) / 1000;
    // A platform that took the day's samples over the day has merged their parts long since; this one took them in
    // minutes: measured once chDB's merges are over, not against them.
    const settleStarted = performance.now();
    const merging = async () => {
      const result = await store.client.query({ query: 'SELECT count() AS n FROM system.merges', format: 'JSONEachRow' });
      return Number(((await result.json()) as { n: string }[])[0]!.n);
    };
    while ((await merging()) > 0 && performance.now() - settleStarted < MAX_SETTLE_S * 1000)
      await new Promise((resolve) => setTimeout(resolve, 200));
    const settleSeconds = (performance.now() - settleStarted) / 1000;
    say(`merges settled in ${settleSeconds.toFixed(1)} s`);

    const { id } = await call('statTask.create', {
      body: {
        name: 'hourly average',
        dataType: 'deviceData',
        productId: null,
        attribute: 'temperature',
        statType: 'avg',
        cycle: '1h',
        dimension: 'device',
        exclusion: { mode: 'none' },
        timeZone: 'Asia/Shanghai',
      },
    });
    await platform.context.awaitProjections?.();
    const db = platform.context.db;
    const scheduler = createStatScheduler({ db, timeseries: store });
    const computation: StatComputation = {
      tenantId: 'bench',
      taskId: 'direct',
      variable: 'temperature',
      statType: 'avg',
      cycle: '1h',
      from,
      to,
      timeZone: 'Asia/Shanghai',
      exclusion: { mode: 'none' },
      keys: { kind: 'device' },
    };
    const direct = statInsertSql(computation, { table: store.table, rollup: statRollupFor(computation, [480, 480]) }, STAT_RESULTS_TABLE);
    const taskTimes: number[] = [];
    const directTimes: number[] = [];
    const runDirect = async () => {
      const t = performance.now();
      await store.client.command({ query: direct, query_params: statParams(computation) });
      directTimes.push((performance.now() - t) / 1000);
    };
    const runTask = async () => {
      const t = performance.now();
      const task = await statTaskById(db, 'bench', id);
      if (!task) throw new Error('the task is not in its read model');
      await scheduler.runTask(task, from, to);
      taskTimes.push((performance.now() - t) / 1000);
    };
    // Each goes first in turn: the one that follows meets the merge of the results the other just wrote.
    for (let run = 0; run < RUNS; run++)
      if (run % 2 === 0) {
        await runDirect();
        await runTask();
      } else {
        await runTask();
        await runDirect();
      }
    const results = await store.statResults({ tenantId: 'bench', taskId: id, from, to, limit: DEVICES * 25 });
    if (results.length !== DEVICES * 24) throw new Error(`the task kept ${results.length} results, not ${DEVICES * 24}`);
    // What the rollup saves: the same statistic folded from the 100 million samples, once; and the task's averages checked against it.
    const raw = { ...computation, taskId: 'raw' };
    const t = performance.now();
    await store.client.command({
      query: statInsertSql(raw, { table: store.table, rollup: null }, STAT_RESULTS_TABLE),
      query_params: statParams(raw),
    });
    const rawSeconds = (performance.now() - t) / 1000;
    const check = await store.client.query({
      query: `SELECT countIf(abs(r.value - t.value) > 1e-9 OR r.samples != t.samples) AS differ, count() AS n
        FROM (SELECT window_start, key, value, samples FROM ${STAT_RESULTS_TABLE} FINAL WHERE tenant_id = 'bench' AND task_id = {raw:String}) AS r
        JOIN (SELECT window_start, key, value, samples FROM ${STAT_RESULTS_TABLE} FINAL WHERE tenant_id = 'bench' AND task_id = {task:String}) AS t
        USING (window_start, key)`,
      query_params: { raw: 'raw', task: id },
      format: 'JSONEachRow',
    });
    const { differ, n } = ((await check.json()) as { differ: string; n: string }[])[0]!;
    if (Number(n) !== DEVICES * 24 || Number(differ) !== 0)
      throw new Error(`the task's averages differ from the samples' in ${differ} of ${n} windows`);
    const disk = await store.client.query({
      query: `SELECT sum(bytes_on_disk) AS bytes FROM system.parts WHERE active AND database = currentDatabase() AND startsWith(table, {table:String})`,
      query_params: { table: store.table },
      format: 'JSONEachRow',
    });
    const diskBytes = Number(((await disk.json()) as { bytes: string }[])[0]!.bytes);
    const task = median(taskTimes);
    const limit = median(directTimes);
    return [
      {
        bench: 'stat-task',
        value: round(task),
        unit: 's',
        limit: round(limit),
        limit_of: 'the same INSERT … SELECT sent straight to chDB',
        ratio: round(limit / task),
        devices: DEVICES,
        rows: total,
        results: results.length,
        insert_s: round(insertSeconds, 1),
        settle_s: round(settleSeconds, 1),
        disk_mb: Math.round(diskBytes / 2 ** 20),
        raw_s: round(rawSeconds),
        raw_of: 'the same statistic folded from the samples instead of the hourly rollup, once',
        goal: '≥ 0.8× the direct run and under 2 s',
      },
    ];
  } finally {
    await bench.stop();
  }
}
