import { statCycles, type StatTaskFields } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { StatComputation, TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import { alarmStatWindows } from '../alarm/read.ts';
import { deviceIdsOfProduct, deviceStatKeys } from '../device/read.ts';
import { enabledStatTasks, statTaskById, type StatTaskRecord } from './read.ts';
import { recordStatRun, takeStatRunRequests } from './runs.ts';

type StatCycle = StatTaskFields['cycle'];
/** Samples up to this late are folded in: each run recomputes the windows this far back. */
export const STAT_LATENESS_MS = 60 * 60_000;
const MAX_DEVICES = 100_000;

/** Local calendar parts of an instant in a zone. */
function localParts(at: Date, timeZone: string) {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  }).formatToParts(at);
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { y: n('year'), mo: n('month'), d: n('day'), h: n('hour'), mi: n('minute') };
}

/** Names the window of `cycle` that holds `at` in the zone (a week starts on Monday): two instants share it iff the names match. */
export function statWindowName(cycle: StatCycle, at: Date, timeZone: string): string {
  const { y, mo, d, h, mi } = localParts(at, timeZone);
  switch (cycle) {
    case '10m':
      return `${y}-${mo}-${d} ${h}:${Math.floor(mi / 10)}`;
    case '30m':
      return `${y}-${mo}-${d} ${h}:${Math.floor(mi / 30)}`;
    case '1h':
      return `${y}-${mo}-${d} ${h}`;
    case '12h':
      return `${y}-${mo}-${d} ${Math.floor(h / 12)}`;
    case '1d':
      return `${y}-${mo}-${d}`;
    case '1w': {
      const day = Date.UTC(y, mo - 1, d) / 86_400_000;
      // 1 January 1970 was a Thursday: Monday-based week number.
      return `w${Math.floor((day + 3) / 7)}`;
    }
    case '1M':
      return `${y}-${mo}`;
  }
}

/** Whose samples a task folds, under which key. */
async function keysOf(db: Sql, task: StatTaskRecord): Promise<StatComputation['keys']> {
  switch (task.dimension) {
    case 'tenant':
      if (!task.productId) return { kind: 'tenant' };
      return {
        kind: 'map',
        keyOf: Object.fromEntries(
          (await deviceIdsOfProduct(db, task.tenantId, task.productId, MAX_DEVICES)).map((id) => [id, task.tenantId]),
        ),
      };
    case 'device':
      return task.productId
        ? { kind: 'device', deviceIds: await deviceIdsOfProduct(db, task.tenantId, task.productId, MAX_DEVICES) }
        : { kind: 'device' };
    case 'group':
    case 'product':
      return { kind: 'map', keyOf: await deviceStatKeys(db, task.tenantId, task.productId, task.dimension) };
  }
}

/**
 * Runs every enabled task whose cycle ended between two ticks, over the windows that meet the last
 * `STAT_LATENESS_MS` before the tick that ended it: the window that just closed, and any earlier one a late
 * sample may have changed. Alarm statistics (alarms are not in the time-series store) are folded in PostgreSQL over
 * the alarms' read model and their results kept beside the others.
 */
export function createStatScheduler(deps: {
  db: Sql;
  timeseries: Pick<TimeSeriesStore, 'computeStat' | 'putStatResults'>;
  onError?: (task: StatTaskRecord, error: unknown) => void;
}) {
  /** Computes the windows of a task that meet [from, to), and records the run: its time, result and duration. */
  async function runTask(task: StatTaskRecord, from: Date, to: Date): Promise<void> {
    const started = Date.now();
    const record = (error: unknown) =>
      recordStatRun(deps.db, {
        taskId: task.id,
        tenantId: task.tenantId,
        at: new Date(started),
        result: error === null ? 'success' : 'failed',
        error: error === null ? null : error instanceof Error ? error.message.slice(0, 500) : String(error).slice(0, 500),
        durationMs: Date.now() - started,
      });
    try {
      await compute(task, from, to);
    } catch (error) {
      await record(error);
      throw error;
    }
    await record(null);
  }
  async function compute(task: StatTaskRecord, from: Date, to: Date): Promise<void> {
    if (task.dataType === 'alarm') {
      const points = await alarmStatWindows(deps.db, {
        tenantId: task.tenantId,
        productId: task.productId,
        variable: task.attribute,
        cycle: task.cycle,
        timeZone: task.timeZone,
        dimension: task.dimension,
        distinct: task.statType === 'distinctCount',
        from,
        to,
      });
      await deps.timeseries.putStatResults(task.tenantId, task.id, points);
      return;
    }
    await deps.timeseries.computeStat({
      tenantId: task.tenantId,
      taskId: task.id,
      variable: task.attribute,
      statType: task.statType,
      cycle: task.cycle,
      from,
      to,
      timeZone: task.timeZone,
      exclusion: task.exclusion,
      keys: await keysOf(deps.db, task),
    });
  }
  return {
    runTask,
    /** The tasks asked to run now (System → tasks): each over the windows of the last `STAT_LATENESS_MS`; answers their ids. */
    async runRequested(now: Date): Promise<string[]> {
      const ran: string[] = [];
      for (const { taskId, tenantId } of await takeStatRunRequests(deps.db)) {
        const task = await statTaskById(deps.db, tenantId, taskId);
        if (!task || task.dataType === 'alarm') continue;
        try {
          await runTask(task, new Date(now.getTime() - STAT_LATENESS_MS), now);
          ran.push(task.id);
        } catch (error) {
          deps.onError?.(task, error);
        }
      }
      return ran;
    },
    /** The tasks run between the previous tick and this one; answers their ids. */
    async tick(previous: Date, now: Date): Promise<string[]> {
      const ran: string[] = [];
      for (const task of await enabledStatTasks(deps.db, statCycles)) {
        if (statWindowName(task.cycle, previous, task.timeZone) === statWindowName(task.cycle, now, task.timeZone)) continue;
        try {
          // Up to the previous tick: the window that closed is the last one computed, never the one just opened.
          await runTask(task, new Date(now.getTime() - STAT_LATENESS_MS), new Date(previous.getTime() + 1));
          ran.push(task.id);
        } catch (error) {
          deps.onError?.(task, error);
        }
      }
      return ran;
    },
  };
}
export type StatScheduler = ReturnType<typeof createStatScheduler>;
