import type { Logger } from 'pino';
import type { LiveFeed } from '@iot/contracts/ports/live.ts';
import type { OutboundHttp } from '@iot/contracts/ports/outbound-http.ts';
import { remindOpenTickets, repushActiveAlarms } from '@iot/projections/alarm/outbox.ts';
import type { SqlPool } from '../postgres/sql.ts';
import { errorClassOf } from '../outbound/errors.ts';
import type { ChannelKind, ChannelSender, MailAttachment } from './channels.ts';
import { tenantChannels } from './tenant-channels.ts';

export interface DeliveryOptions {
  db: SqlPool;
  /** The platform's channels: what carries a tenant's notifications where it configured none of its own. */
  channels: ChannelSender;
  /** The guard every call of a tenant's own channels goes through (issue 24). */
  outbound: OutboundHttp;
  /** The platform's sender address, for a tenant's SMTP without one of its own. */
  from?: string;
  logger: Logger;
  live?: LiveFeed;
  /** Tries before a record is marked failed; between them the wait doubles from `backoffMs`. */
  maxAttempts?: number;
  backoffMs?: number;
  /** Minutes between reminders of an open ticket (spec §9 workflow reminders). */
  reminderMin?: number;
  intervalMs?: number;
}

type Due = {
  id: string;
  tenant_id: string;
  send_way: 'sms' | 'email' | 'inApp' | 'wechat';
  recipient: string;
  subject: string;
  body: string;
  source_key: string;
  attempts: number;
};

/** How long a claimed record stays with its sender before another may take it (a sender that died). */
const LEASE_SECONDS = 60;

/**
 * The outbox's delivery worker: claims due records (`for update skip locked`, so several processes share
 * the work and none sends a record another holds), sends each through its channel, and records the
 * outcome; a failure waits and retries with back-off, and one slow or failing channel never holds up the
 * others (each record is sent on its own). Without a configured channel a record stays in the local
 * outbox, which the records screen shows: `npm start` needs no mail server.
 */
export function startDelivery(options: DeliveryOptions) {
  const { db, logger } = options;
  const tenants = tenantChannels(db, options.channels, { from: options.from ?? 'iot@localhost', outbound: options.outbound });
  const maxAttempts = options.maxAttempts ?? 5;
  const backoffMs = options.backoffMs ?? 5_000;
  const reminderMin = options.reminderMin ?? 60;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;
  let stopped = false;
  let lastHousekeeping = 0;

  async function housekeeping() {
    await repushActiveAlarms(db);
    await remindOpenTickets(db, reminderMin);
    // The storm caps' counters of minutes long past.
    await db.query(`delete from notify_rate where minute < now() - interval '10 minutes'`);
    // Mail attachments a month old whose mails have all gone (or given up).
    await db.query(
      `delete from notify_attachments a where a.created_at < now() - interval '30 days'
         and not exists (select 1 from notify_records r where r.source_key = a.source_key and r.status = 'unsent')`,
    );
    // A storm's minute is over: one summary per recipient for what the caps held back.
    await db.query(
      `with done as (
         update notify_storm set summarised = true
         where not summarised and minute < date_trunc('minute', now()) and suppressed > 0
         returning tenant_id, minute, send_way, recipient, contact_id, suppressed)
       insert into notify_records (tenant_id, source_key, send_way, type, recipient, contact_id, subject, body, summary)
       select tenant_id, 'storm:' || to_char(minute, 'YYYY-MM-DD"T"HH24:MI'), send_way, send_way, recipient, contact_id,
              '告警风暴 Alarm storm: ' || suppressed || ' more',
              suppressed || ' 条告警通知因频率上限未逐条发送 / ' || suppressed || ' alarm notifications were held back by the rate cap in the minute from '
                || to_char(minute, 'YYYY-MM-DD HH24:MI'),
              true
       from done on conflict do nothing`,
    );
  }

  /** Sends one record through its tenant's channels; answers what carried it. */
  async function send(record: Due, channels: ChannelSender): Promise<string> {
    if (record.send_way === 'inApp') return 'inbox';
    if (record.send_way === 'wechat') {
      const robots = (['wechat', 'dingtalk'] as ChannelKind[]).filter((k) => channels.configured(k));
      for (const channel of robots) await channels.send({ channel, to: record.recipient, subject: record.subject, body: record.body });
      return robots.length ? robots.map((k) => (k === 'wechat' ? 'wecom' : k)).join('+') : 'outbox';
    }
    // Not configured: the record itself is the local outbox.
    if (!channels.configured(record.send_way)) return 'outbox';
    const attachments =
      record.send_way === 'email'
        ? (
            await db.query<MailAttachment>(
              `select filename, content_type as "contentType", content from notify_attachments where source_key = $1 order by filename`,
              [record.source_key],
            )
          ).rows
        : [];
    await channels.send({
      channel: record.send_way,
      to: record.recipient,
      subject: record.subject,
      body: record.body,
      ...(attachments.length ? { attachments } : {}),
    });
    return record.send_way === 'email' ? 'smtp' : 'sms';
  }

  /** One pass: claims what is due and sends it. Answers how many records it handled. */
  async function pass(): Promise<number> {
    if (Date.now() - lastHousekeeping > 5_000) {
      lastHousekeeping = Date.now();
      await housekeeping();
    }
    const due = (
      await db.query<Due>(
        `update notify_records set next_at = now() + make_interval(secs => $1)
         where id in (select id from notify_records where status = 'unsent' and next_at <= now() order by id limit 100 for update skip locked)
         returning id::text, tenant_id, send_way, recipient, subject, body, source_key, attempts`,
        [LEASE_SECONDS],
      )
    ).rows;
    const inboxes = new Map<string, number>();
    const senders = new Map<string, Promise<ChannelSender>>();
    const senderOf = (tenantId: string) => {
      if (!senders.has(tenantId)) senders.set(tenantId, tenants.forTenant(tenantId));
      return senders.get(tenantId)!;
    };
    await Promise.all(
      due.map(async (record) => {
        try {
          const via = await send(record, await senderOf(record.tenant_id));
          await db.query(
            `update notify_records set status = 'sent', sent_at = now(), attempts = attempts + 1, error = null, via = $2 where id = $1 and status = 'unsent'`,
            [record.id, via],
          );
          if (record.send_way === 'inApp') inboxes.set(record.tenant_id, (inboxes.get(record.tenant_id) ?? 0) + 1);
        } catch (error) {
          const attempts = record.attempts + 1;
          // The tenant reads only the class (the peer's answer or a refused address's detail would tell it about the
          // platform's network); the platform log keeps why.
          const errorClass = errorClassOf(error);
          const reason = (error as Error).message.slice(0, 500);
          logger.warn(
            { record: record.id, tenantId: record.tenant_id, sendWay: record.send_way, attempts, errorClass, reason },
            'notification not delivered',
          );
          await db.query(
            `update notify_records set attempts = $2::int, error = $3,
               status = case when $2::int >= $4::int then 'failed' else 'unsent' end,
               next_at = now() + make_interval(secs => $5::float8) where id = $1 and status = 'unsent'`,
            [record.id, attempts, errorClass, maxAttempts, (backoffMs * 2 ** (attempts - 1)) / 1000],
          );
        }
      }),
    );
    // Each user's unread count is their own: the bells are told that messages arrived and ask for theirs.
    if (options.live?.listening('inbox.live'))
      for (const [tenantId, arrived] of inboxes) options.live.publish('inbox.live', { tenantId }, { arrived });
    return due.length;
  }

  function schedule() {
    if (stopped) return;
    timer = setTimeout(() => {
      running = pass()
        .catch((error: unknown) => {
          logger.error({ err: error }, 'notification delivery failed');
          return 0;
        })
        .finally(() => {
          running = null;
          schedule();
        });
    }, options.intervalMs ?? 200);
  }
  schedule();

  return {
    /** Sends everything due now (tests, shutdown): passes until one finds nothing. */
    async drain() {
      lastHousekeeping = 0;
      // A scheduled pass may hold records it claimed while this one finds none: wait for it as well.
      for (;;) {
        if (running) {
          await running;
          continue;
        }
        if ((await pass()) === 0 && !running) return;
      }
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      tenants.close();
    },
  };
}
export type Delivery = ReturnType<typeof startDelivery>;
