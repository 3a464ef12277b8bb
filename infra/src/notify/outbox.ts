import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { SqlPool } from '../postgres/sql.ts';
import type { Notification, Notifier } from './port.ts';

import { migrate } from '../migrate/migrate.ts';

export const outboxSchema = `
create table notify_outbox (
  id bigint generated always as identity primary key,
  tenant_id text not null,
  channel text not null,
  recipient text not null,
  subject text not null,
  body text not null,
  status text not null,
  error text,
  created_at timestamptz not null default now()
);
create index notify_outbox_recipient on notify_outbox (recipient, created_at desc);`;

/**
 * Every message is written to the outbox table. Email goes out over SMTP when SMTP_URL is set; without it
 * (and for SMS, which has no gateway yet) the message stays in the outbox and the log, marked 'logged'.
 */
export async function createNotifier(db: SqlPool, logger: Logger, options: { smtpUrl?: string; from: string }): Promise<Notifier> {
  await migrate(db, [{ owner: 'notify', tables: ['notify_outbox'], migrations: [{ version: 1, name: 'create', sql: outboxSchema }] }]);
  const mail = options.smtpUrl ? nodemailer.createTransport(options.smtpUrl) : null;
  return {
    async send(n: Notification) {
      let status: 'sent' | 'logged' | 'failed' = 'logged';
      let error: string | null = null;
      if (n.channel === 'email' && mail) {
        try {
          await mail.sendMail({ from: options.from, to: n.to, subject: n.subject, text: n.body });
          status = 'sent';
        } catch (e) {
          status = 'failed';
          error = (e as Error).message;
        }
      }
      const row = await db.query<{ id: number }>(
        `insert into notify_outbox (tenant_id, channel, recipient, subject, body, status, error)
         values ($1, $2, $3, $4, $5, $6, $7) returning id`,
        [n.tenantId, n.channel, n.to, n.subject, n.body, status, error],
      );
      logger.info({ outboxId: row.rows[0]!.id, channel: n.channel, to: n.to, subject: n.subject, body: n.body, status }, 'notification');
      return { id: row.rows[0]!.id, status };
    },
  };
}
