import type { Logger } from 'pino';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import { createStatBackfiller } from '@iot/projections/stat/backfill.ts';
import { createStatScheduler } from '@iot/projections/stat/scheduler.ts';
import type { Stops } from './stops.ts';
import { sinceLastTick, startTicker } from './ticker.ts';

/** Ticks often enough that a 10-minute window is computed within a minute of its end. */
const TICK_MS = 60_000;
/** "Run now" from System → tasks is looked for this often. */
const REQUEST_MS = 2_000;
/** How often the backfill worker looks for work; each look works for up to two seconds. */
const BACKFILL_TICK_MS = 1_000;

/** Runs the enabled statistic tasks at each of their cycles' ends, one tick at a time (a slow run delays the next tick, never overlaps it). */
export function startStatScheduler(db: Sql, timeseries: TimeSeriesStore, logger: Logger, stops: Stops): void {
  const scheduler = createStatScheduler({
    db,
    timeseries,
    onError: (task, err) => logger.error({ err, taskId: task.id, tenantId: task.tenantId }, 'statistic task failed'),
  });
  startTicker(
    'statistic scheduler tick',
    TICK_MS,
    sinceLastTick((previous, now) => scheduler.tick(previous, now)),
    logger,
    stops,
  );
  startTicker('statistic run-now requests', REQUEST_MS, () => scheduler.runRequested(new Date()).then(() => undefined), logger, stops);
  // Backfills of tasks over past data, chunk by chunk, with progress; beside the ticks, never overlapping itself.
  const backfiller = createStatBackfiller({
    db,
    scheduler,
    onError: (task, err) => logger.error({ err, taskId: task.id, tenantId: task.tenantId }, 'statistic backfill chunk failed'),
  });
  startTicker('statistic backfill step', BACKFILL_TICK_MS, () => backfiller.step().then(() => undefined), logger, stops);
}
