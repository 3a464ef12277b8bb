import { DomainError, REPORT_VIEW_ROWS, type ReportRoutes, type ReportRow, type ReportTable } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { rawAnswer } from '@iot/contracts/http/route.ts';
import { streamReport, type ReportSpec } from '@iot/projections/report/compute.ts';
import { reportById, reportsPage, type ReportRecord } from '@iot/projections/report/read.ts';
import { reportCsv, reportPdf, reportXlsx } from './render.ts';

const toRow = (r: ReportRecord): ReportRow => ({
  id: r.id,
  name: r.name,
  deviceIds: r.deviceIds,
  groupId: r.groupId,
  variables: r.variables,
  fn: r.fn,
  cycle: r.cycle,
  timeZone: r.timeZone,
  frequency: r.frequency,
  hour: r.hour,
  contactIds: r.contactIds,
  remark: r.remark,
  lastSentAt: r.lastSentAt ? r.lastSentAt.toISOString() : null,
  createTime: r.createdAt.toISOString(),
  updateTime: r.updatedAt.toISOString(),
});

/** A report of the caller's tenant, narrowed to their station, computed in the time-series store and read as it is used. */
function run(ctx: RequestContext, spec: ReportSpec) {
  const { tenantId, stationId } = callerOf(ctx);
  if (!ctx.ports.timeseries) throw new DomainError('INTERNAL');
  return streamReport({ db: ctx.ports.db, timeseries: ctx.ports.timeseries }, { tenantId, stationId: stationId ?? null }, spec);
}

/** Custom reports (issue 20): run for the screen, exported as CSV, XLSX or PDF, and the saved ones listed. */
export const reportQueryHandlers: Pick<Handlers<ReportRoutes>, 'report.run' | 'report.export' | 'report.list' | 'report.detail'> = {
  async 'report.run'({ query: q }, ctx) {
    const result = await run(ctx, { ...q, from: new Date(q.from), to: new Date(q.to) });
    // The screen's first rows, and how many there are in all.
    const rows: ReportTable['rows'] = [];
    let total = 0;
    for await (const row of result.rows) if (total++ < REPORT_VIEW_ROWS) rows.push(row);
    return { ...result, rows, total };
  },

  async 'report.export'({ query: q }, ctx) {
    const result = await run(ctx, { ...q, from: new Date(q.from), to: new Date(q.to) });
    const heading = { name: q.name ?? 'report', from: q.from, to: q.to, timeZone: q.timeZone, cycle: q.cycle, fn: q.fn, lang: ctx.lang };
    // A header carries Latin-1 only: a Chinese name leaves the file named by its date.
    const file = `${heading.name.replace(/[^\w.-]+/g, '') || 'report'}-${q.from.slice(0, 10)}`;
    switch (q.format) {
      case 'csv':
        return rawAnswer('text/csv; charset=utf-8', reportCsv(result, heading), `${file}.csv`);
      case 'xlsx':
        return rawAnswer('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', reportXlsx(result, heading), `${file}.xlsx`);
      case 'pdf':
        return rawAnswer('application/pdf', await reportPdf(result, heading), `${file}.pdf`);
    }
  },

  async 'report.list'({ query: q }, ctx) {
    const page = await reportsPage(ctx.ports.db, callerOf(ctx).tenantId, { name: q.name, frequency: q.frequency }, q);
    return { ...page, rows: page.rows.map(toRow) };
  },

  async 'report.detail'({ query }, ctx) {
    const report = await reportById(ctx.ports.db, callerOf(ctx).tenantId, query.id);
    if (!report) throw new DomainError('NOT_FOUND');
    return toRow(report);
  },
};
