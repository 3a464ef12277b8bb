import type { Logger } from 'pino';
import type { LiveFeed } from '@iot/contracts/ports/live.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import { createStatWorker, STAT_PASS_MS } from '@iot/projections/stat/worker.ts';
import type { Stops } from './stops.ts';
import { startTicker } from './ticker.ts';

/**
 * Runs the statistic tasks (on request, at their cycles' ends, and their backfills with progress on the `stat.backfill`
 * channel) in one loop: a pass at a time, a slow pass delays the next, never overlaps it.
 */
export function startStatScheduler(db: Sql, timeseries: TimeSeriesStore, live: LiveFeed, logger: Logger, stops: Stops): void {
  const worker = createStatWorker({
    db,
    timeseries,
    live,
    onError: (task, err, during) =>
      logger.error(
        { err, taskId: task.id, tenantId: task.tenantId },
        during === 'run' ? 'statistic task failed' : 'statistic backfill chunk failed',
      ),
  });
  startTicker('statistic worker', STAT_PASS_MS, () => worker.pass().then(() => undefined), logger, stops);
}
