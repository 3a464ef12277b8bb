import type { ChannelKind, ChannelSender, TenantChannels } from '@iot/contracts/ports/channels.ts';
import type { LiveFeed } from '@iot/contracts/ports/live.ts';
import type { OutboundErrorClass } from '@iot/contracts/ports/outbound-http.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import {
  claimDueNotifications,
  deleteSentAttachments,
  mailAttachments,
  markNotificationSent,
  markNotificationUndelivered,
  remindOpenTickets,
  repushActiveAlarms,
  summariseStorms,
  type DueNotification,
} from '../alarm/outbox.ts';

export interface DeliveryOptions {
  db: Sql;
  /** Each tenant's channels (its own, else the platform's), and the class a tenant may see of a failed send. */
  channels: TenantChannels;
  live?: LiveFeed;
  /** Tries before a record is marked failed; between them the wait doubles from `backoffMs`. */
  maxAttempts?: number;
  backoffMs?: number;
  /** Minutes between reminders of an open ticket (spec §9 workflow reminders). */
  reminderMin?: number;
  intervalMs?: number;
  /** A record not delivered this time: the platform log keeps why (`reason`), the tenant sees only the class. */
  onUndelivered(detail: {
    record: string;
    tenantId: string;
    sendWay: DueNotification['send_way'];
    attempts: number;
    errorClass: OutboundErrorClass;
    reason: string;
  }): void;
  /** A pass that failed as a whole (the database); the next pass still comes. */
  onError(error: unknown): void;
}

/** How long a claimed record stays with its sender before another may take it (a sender that died). */
const LEASE_SECONDS = 60;

/** Sends one record through its tenant's channels; answers what carried it. */
async function send(db: Sql, record: DueNotification, channels: ChannelSender): Promise<string> {
  if (record.send_way === 'inApp') return 'inbox';
  if (record.send_way === 'wechat') {
    const robots = (['wechat', 'dingtalk'] as ChannelKind[]).filter((k) => channels.configured(k));
    for (const channel of robots) await channels.send({ channel, to: record.recipient, subject: record.subject, body: record.body });
    return robots.length ? robots.map((k) => (k === 'wechat' ? 'wecom' : k)).join('+') : 'outbox';
  }
  // Not configured: the record itself is the local outbox.
  if (!channels.configured(record.send_way)) return 'outbox';
  const attachments = record.send_way === 'email' ? await mailAttachments(db, record.source_key) : [];
  await channels.send({
    channel: record.send_way,
    to: record.recipient,
    subject: record.subject,
    body: record.body,
    ...(attachments.length ? { attachments } : {}),
  });
  return record.send_way === 'email' ? 'smtp' : 'sms';
}

/**
 * The outbox's delivery worker: claims due records (`for update skip locked`, so several processes share
 * the work and none sends a record another holds), sends each through its channel, and records the
 * outcome; a failure waits and retries with back-off, and one slow or failing channel never holds up the
 * others (each record is sent on its own). Without a configured channel a record stays in the local
 * outbox, which the records screen shows: `npm start` needs no mail server.
 */
export function startDelivery(options: DeliveryOptions) {
  const { db, channels } = options;
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
    await summariseStorms(db);
    await deleteSentAttachments(db);
  }

  /** One pass: claims what is due and sends it. Answers how many records it handled. */
  async function pass(): Promise<number> {
    if (Date.now() - lastHousekeeping > 5_000) {
      lastHousekeeping = Date.now();
      await housekeeping();
    }
    const due = await claimDueNotifications(db, LEASE_SECONDS);
    const inboxes = new Map<string, number>();
    const senders = new Map<string, Promise<ChannelSender>>();
    const senderOf = (tenantId: string) => {
      if (!senders.has(tenantId)) senders.set(tenantId, channels.forTenant(tenantId));
      return senders.get(tenantId)!;
    };
    await Promise.all(
      due.map(async (record) => {
        try {
          await markNotificationSent(db, record.id, await send(db, record, await senderOf(record.tenant_id)));
          if (record.send_way === 'inApp') inboxes.set(record.tenant_id, (inboxes.get(record.tenant_id) ?? 0) + 1);
        } catch (error) {
          const attempts = record.attempts + 1;
          // The tenant reads only the class (the peer's answer or a refused address's detail would tell it about the
          // platform's network); the platform log keeps why.
          const errorClass = channels.errorClassOf(error);
          const reason = (error as Error).message.slice(0, 500);
          options.onUndelivered({ record: record.id, tenantId: record.tenant_id, sendWay: record.send_way, attempts, errorClass, reason });
          await markNotificationUndelivered(db, {
            id: record.id,
            attempts,
            errorClass,
            maxAttempts,
            retryInSeconds: (backoffMs * 2 ** (attempts - 1)) / 1000,
          });
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
          options.onError(error);
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
      channels.close();
    },
  };
}
export type Delivery = ReturnType<typeof startDelivery>;
