import { DomainError, type MarketData } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import { computeReport, type ReportResult } from '../report/compute.ts';
import { reportById } from '../report/read.ts';
import { statTaskById } from '../stat/read.ts';
import type { MarketDatasetRecord } from './read.ts';

/** Cells a data set answers at most in one call. */
const MAX_RESULTS = 100_000;

/** A report as a data set's table: time, device id, serial number, then one column per variable. */
function reportTable(result: ReportResult): Pick<MarketData, 'columns' | 'rows'> {
  const sn = new Map(result.devices.map((d) => [d.id, d.sn]));
  return {
    columns: ['time', 'deviceId', 'sn', ...result.columns.map((c) => c.variable)],
    rows: result.rows.map((r) => [r.time, r.deviceId, sn.get(r.deviceId) ?? null, ...r.values]),
  };
}

/**
 * A data set's table over the last `windowDays` days up to `now`, computed in the time-series store: a group's
 * variables folded per cycle, a statistic task's stored results, or a saved report's definition. A task or report
 * deleted since the data set was published is NOT_FOUND.
 */
export async function marketDataOf(
  deps: { db: Sql; timeseries: TimeSeriesStore },
  dataset: MarketDatasetRecord,
  now: Date,
): Promise<MarketData> {
  const to = now;
  const from = new Date(now.getTime() - dataset.windowDays * 86_400_000);
  const caller = { tenantId: dataset.tenantId, stationId: null };
  const head = { datasetId: dataset.id, name: dataset.name, from: from.toISOString(), to: to.toISOString() };
  const source = dataset.source;
  switch (source.kind) {
    case 'deviceData':
      return { ...head, ...reportTable(await computeReport(deps, caller, { ...source, from, to })) };
    case 'report': {
      const report = await reportById(deps.db, dataset.tenantId, source.reportId);
      if (!report) throw new DomainError('NOT_FOUND');
      return { ...head, ...reportTable(await computeReport(deps, caller, { ...report, from, to })) };
    }
    case 'statResult': {
      const task = await statTaskById(deps.db, dataset.tenantId, source.taskId);
      if (!task) throw new DomainError('NOT_FOUND');
      const points = await deps.timeseries.statResults({ tenantId: dataset.tenantId, taskId: task.id, from, to, limit: MAX_RESULTS });
      return {
        ...head,
        columns: ['windowStart', 'key', 'value', 'samples'],
        rows: points.map((p) => [p.windowStart.toISOString(), p.key, p.value, p.samples]),
      };
    }
  }
}
