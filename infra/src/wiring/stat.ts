import type { Logger } from 'pino';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import { createStatBackfiller } from '@iot/projections/stat/backfill.ts';
import { createStatScheduler } from '@iot/projections/stat/scheduler.ts';
import type { Stops } from './stops.ts';

/** Ticks often enough that a 10-minute window is computed within a minute of its end. */
const TICK_MS = 60_000;
/** How often the backfill worker looks for work; each look works for up to two seconds. */
const BACKFILL_TICK_MS = 1_000;

/** Runs the enabled statistic tasks at each of their cycles' ends, one tick at a time (a slow run delays the next tick, never overlaps it). */
export function startStatScheduler(db: Sql, timeseries: TimeSeriesStore, logger: Logger, stops: Stops): void {
  const scheduler = createStatScheduler({
    db,
    timeseries,
    onError: (task, err) => logger.error({ err, taskId: task.id, tenantId: task.tenantId }, 'statistic task failed'),
  });
  let previous = new Date();
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      const now = new Date();
      running = scheduler
        .tick(previous, now)
        .then(() => void (previous = now))
        .catch((err: unknown) => logger.error({ err }, 'statistic scheduler tick failed'))
        .finally(schedule);
    }, TICK_MS);
  };
  schedule();

  // Backfills of tasks over past data, chunk by chunk, with progress; beside the ticks, never overlapping itself.
  const backfiller = createStatBackfiller({
    db,
    scheduler,
    onError: (task, err) => logger.error({ err, taskId: task.id, tenantId: task.tenantId }, 'statistic backfill chunk failed'),
  });
  let backfilling: Promise<unknown> = Promise.resolve();
  let backfillTimer: NodeJS.Timeout | null = null;
  const scheduleBackfill = () => {
    if (stopped) return;
    backfillTimer = setTimeout(() => {
      backfilling = backfiller
        .step()
        .catch((err: unknown) => logger.error({ err }, 'statistic backfill step failed'))
        .finally(scheduleBackfill);
    }, BACKFILL_TICK_MS);
  };
  scheduleBackfill();
  stops.push(async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    if (backfillTimer) clearTimeout(backfillTimer);
    await running;
    await backfilling;
  });
}
