import type { Logger } from 'pino';
import type { SqlPool } from '../postgres/sql.ts';
import type { Notification, Notifier } from './port.ts';
import type { ChannelSender } from './channels.ts';

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
 * Messages to people outside the alarm flow (verification codes, registration audit results). Every message
 * is written to the outbox table and goes out through the same channels as alarm notifications: email over
 * SMTP when SMTP_URL is set, SMS through the SMS gateway when configured; otherwise it stays in the outbox and
 * the log, marked 'logged'.
 */
export async function createNotifier(db: SqlPool, logger: Logger, channels: ChannelSender): Promise<Notifier> {
  await migrate(db, [{ owner: 'notify', tables: ['notify_outbox'], migrations: [{ version: 1, name: 'create', sql: outboxSchema }] }]);
  return {
    async send(n: Notification) {
      let status: 'sent' | 'logged' | 'failed' = 'logged';
      let error: string | null = null;
      if (channels.configured(n.channel)) {
        try {
          await channels.send({ channel: n.channel, to: n.to, subject: n.subject, body: n.body });
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
