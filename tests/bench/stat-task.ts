import type { StatComputation } from '@iot/contracts/ports/timeseries.ts';
import type { ClickHouseTimeSeriesStore } from '@iot/infra/timeseries/clickhouse.ts';
import { STAT_RESULTS_TABLE, statInsertSql, statParams, statRollupFor } from '@iot/infra/timeseries/stat.ts';
import { statTaskById } from '@iot/projections/stat/read.ts';
import { createStatScheduler } from '@iot/projections/stat/scheduler.ts';
import { benchTenantApi, startBenchPlatform } from './bare.ts';
import type { Figure } from './figure.ts';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 10_000);
/** Samples per device over the day: 10,000 devices × 10,000 is the 100 million; the default is a tenth. */
const PER_DEVICE = Number(process.env.BENCH_STAT_SAMPLES ?? 1_000);
const RUNS = 3;
const BATCH = 200_000;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * `stat-task` (issue 20): one statistic task (hourly average per device) over one day of N devices' samples in
 * Shanghai, run as the scheduler runs it (the task read from its read model, the run through the port, folded from the
 * hourly rollup), against the same `INSERT … SELECT` sent straight to chDB. Seconds, median of three runs each.
 * Goal: at least 0.8× the direct run, and under 2 s.
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
    const step = 86_400_000 / PER_DEVICE;
    const total = DEVICES * PER_DEVICE;
    const insertStarted = performance.now();
    for (let start = 0; start < total; start += BATCH) {
      await store.insertTelemetry(
        Array.from({ length: Math.min(BATCH, total - start) }, (_, k) => {
          const i = start + k;
          const device = i % DEVICES;
          const n = Math.floor(i / DEVICES);
          return {
            tenantId: 'bench',
            deviceId: `stat-${String(device).padStart(5, '0')}`,
            variable: 'temperature',
            ts: new Date(from.getTime() + n * step + (device % 1000)),
            value: 20 + ((device + n) % 50) / 10,
            text: null,
          };
        }),
      );
    }
    const insertSeconds = (performance.now() - insertStarted) / 1000;

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
    for (let run = 0; run < RUNS; run++) {
      let t = performance.now();
      await store.client.command({ query: direct, query_params: statParams(computation) });
      directTimes.push((performance.now() - t) / 1000);
      t = performance.now();
      const task = await statTaskById(db, 'bench', id);
      if (!task) throw new Error('the task is not in its read model');
      await scheduler.runTask(task, from, to);
      taskTimes.push((performance.now() - t) / 1000);
    }
    const results = await store.statResults({ tenantId: 'bench', taskId: id, from, to, limit: DEVICES * 25 });
    if (results.length !== DEVICES * 24) throw new Error(`the task kept ${results.length} results, not ${DEVICES * 24}`);
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
        goal: '≥ 0.8× the direct run and under 2 s',
      },
    ];
  } finally {
    await bench.stop();
  }
}
