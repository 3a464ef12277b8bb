import type { Logger } from 'pino';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import { createReportScheduler } from '@iot/projections/report/scheduler.ts';
import { reportMailXlsx } from '@iot/query/report/render.ts';
import type { Stops } from './stops.ts';
import { sinceLastTick, startTicker } from './ticker.ts';

/** A schedule fires on the hour: a tick a minute sends a report within a minute of its time. */
const TICK_MS = 60_000;

/** Emails the scheduled reports at their times, one tick at a time (a slow tick delays the next, never overlaps it). */
export function startReportScheduler(db: Sql, timeseries: TimeSeriesStore, logger: Logger, stops: Stops): void {
  const scheduler = createReportScheduler({
    db,
    timeseries,
    attachments: reportMailXlsx,
    onError: (report, err) => logger.error({ err, reportId: report.id, tenantId: report.tenantId }, 'scheduled report failed'),
  });
  startTicker(
    'report scheduler tick',
    TICK_MS,
    sinceLastTick((previous, now) => scheduler.tick(previous, now)),
    logger,
    stops,
  );
}
