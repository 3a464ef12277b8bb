import type { Logger } from 'pino';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import { createStatScheduler } from '@iot/projections/stat/scheduler.ts';
import type { Stops } from './stops.ts';

/** Ticks often enough that a 10-minute window is computed within a minute of its end. */
const TICK_MS = 60_000;
/** "Run now" from System → tasks is looked for this often. */
const REQUEST_MS = 2_000;

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
  let asked: Promise<void> = Promise.resolve();
  const requests = setInterval(() => {
    asked = asked
      .then(() => scheduler.runRequested(new Date()))
      .then(() => undefined)
      .catch((err: unknown) => logger.error({ err }, 'statistic run-now requests not taken'));
  }, REQUEST_MS);
  requests.unref();
  stops.push(async () => {
    stopped = true;
    clearInterval(requests);
    if (timer) clearTimeout(timer);
    await Promise.all([running, asked]);
  });
}
