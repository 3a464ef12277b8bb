import { Cron } from 'croner';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import { contactAddresses } from '../alarm/read.ts';
import { computeReport, type ReportResult } from './compute.ts';
import { reportMailText } from './mail.ts';
import { closedPeriod, cronOf } from './period.ts';
import { scheduledReports, type ReportRecord } from './read.ts';
import { claimSending, queueReportMail, releaseSending, type ReportMail } from './sendings.ts';

/** Renders the files a report's mail carries (the table as XLSX: query/src/report/render.ts, bound by infra). */
export type ReportAttachments = (
  report: ReportRecord,
  period: { from: Date; to: Date },
  result: ReportResult,
) => Promise<NonNullable<ReportMail['attachments']>>;

/** The instant a report's schedule fired in (previous, now], or null. */
export function firedBetween(report: Pick<ReportRecord, 'frequency' | 'hour' | 'timeZone'>, previous: Date, now: Date): Date | null {
  if (report.frequency === 'none') return null;
  const next = new Cron(cronOf(report.frequency, report.hour), { timezone: report.timeZone, paused: true }).nextRun(previous);
  return next && next.getTime() <= now.getTime() ? next : null;
}

/**
 * Emails the scheduled reports whose time came between two ticks: each is computed over the period that just
 * closed and queued in the notification outbox for its contacts. A sending is claimed first (report, period), so
 * with several processes ticking, one sends it and the others skip it.
 */
export function createReportScheduler(deps: {
  db: Sql;
  timeseries: TimeSeriesStore;
  /** The files each mail carries; none without it. */
  attachments?: ReportAttachments;
  onError?: (report: ReportRecord, error: unknown) => void;
}) {
  async function send(report: ReportRecord, fireAt: Date): Promise<boolean> {
    if (report.frequency === 'none') return false;
    const period = closedPeriod(report.frequency, fireAt, report.timeZone);
    if (!(await claimSending(deps.db, report.tenantId, report.id, period.name))) return false;
    try {
      const result = await computeReport(
        deps,
        { tenantId: report.tenantId, stationId: null },
        { ...report, from: period.from, to: period.to },
      );
      const day = period.from.toLocaleDateString('sv-SE', { timeZone: report.timeZone });
      await queueReportMail(deps.db, {
        tenantId: report.tenantId,
        reportId: report.id,
        period: period.name,
        recipients: await contactAddresses(deps.db, report.tenantId, report.contactIds),
        subject: `报表 Report: ${report.name} (${day})`,
        body: reportMailText(report, period, result, !!deps.attachments),
        attachments: deps.attachments ? await deps.attachments(report, period, result) : [],
      });
      return true;
    } catch (error) {
      await releaseSending(deps.db, report.id, period.name);
      throw error;
    }
  }
  return {
    send,
    /** The reports sent between the previous tick and this one; answers their ids. */
    async tick(previous: Date, now: Date): Promise<string[]> {
      const sent: string[] = [];
      for (const report of await scheduledReports(deps.db)) {
        const fireAt = firedBetween(report, previous, now);
        if (!fireAt) continue;
        try {
          if (await send(report, fireAt)) sent.push(report.id);
        } catch (error) {
          deps.onError?.(report, error);
        }
      }
      return sent;
    },
  };
}
export type ReportScheduler = ReturnType<typeof createReportScheduler>;
