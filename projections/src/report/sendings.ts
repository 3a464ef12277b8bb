import type { Sql } from '@iot/contracts/ports/sql.ts';

/**
 * One row per report and period sent: the claim that makes a scheduled sending happen once, however many
 * processes run the scheduler (the first insert wins; the others find the row and skip). Not a read model: a
 * rebuild never resends.
 */
export const reportSendingsSchema = `
create table report_sendings (
  report_id text not null,
  period text not null,
  tenant_id text not null,
  claimed_at timestamptz not null default now(),
  recipients int not null default 0,
  primary key (report_id, period)
);`;

/** Takes the sending of a report's period; false when another process (or an earlier tick) has it. */
export async function claimSending(db: Sql, tenantId: string, reportId: string, period: string): Promise<boolean> {
  const rows = await db.query(
    'insert into report_sendings (report_id, period, tenant_id) values ($1, $2, $3) on conflict do nothing returning report_id',
    [reportId, period, tenantId],
  );
  return rows.rows.length === 1;
}

/** Gives a claim back (the report could not be computed), so that the next tick tries again. */
export async function releaseSending(db: Sql, reportId: string, period: string): Promise<void> {
  await db.query('delete from report_sendings where report_id = $1 and period = $2', [reportId, period]);
}

export interface ReportMail {
  tenantId: string;
  reportId: string;
  period: string;
  recipients: { contactId: string; name: string; email: string }[];
  subject: string;
  body: string;
  /** Files the mail carries (the table as XLSX), stored once for every recipient's record. */
  attachments?: readonly { filename: string; contentType: string; content: Uint8Array }[];
}

/**
 * Puts a report's mail in the notification outbox (notify_records, projections/src/alarm/outbox.ts), one record per
 * contact: the delivery worker sends it through the tenant's email channel like an alarm notice, with retries.
 */
export async function queueReportMail(db: Sql, mail: ReportMail): Promise<void> {
  const sourceKey = `report:${mail.reportId}:${mail.period}`;
  // Before the records: the delivery worker may take a record as soon as it is written.
  for (const a of mail.attachments ?? [])
    await db.query(
      `insert into notify_attachments (source_key, filename, content_type, content) values ($1, $2, $3, $4) on conflict do nothing`,
      [sourceKey, a.filename, a.contentType, Buffer.from(a.content)],
    );
  for (const r of mail.recipients) {
    await db.query(
      `insert into notify_records (tenant_id, source_key, send_way, type, recipient, contact_id, contact_name, subject, body)
       values ($1, $2, 'email', 'report', $3, $4, $5, $6, $7) on conflict do nothing`,
      [mail.tenantId, sourceKey, r.email, r.contactId, r.name, mail.subject, mail.body],
    );
  }
  await db.query('update report_sendings set recipients = $3 where report_id = $1 and period = $2', [
    mail.reportId,
    mail.period,
    mail.recipients.length,
  ]);
}
