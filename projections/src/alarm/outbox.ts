import type { MailAttachment } from '@iot/contracts/ports/channels.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';

/**
 * Notification records: the outbox. A record is written once per (source, way, recipient), by the
 * notification reactor in the transaction that moves its checkpoint (so a replay writes none twice), and
 * sent by the delivery worker, which claims unsent rows with `for update skip locked`, retries a failure
 * with back-off, and never sends a record that is already sent. Not a read model: a rebuild never resends.
 */
export const notifyRecordsSchema = `
create table notify_records (
  id bigint generated always as identity primary key,
  tenant_id text not null,
  source_key text not null,
  config_id text,
  alarm_id text,
  ticket_id text,
  sn text,
  group_id text,
  send_way text not null,
  type text not null,
  recipient text not null,
  contact_id text,
  contact_name text,
  subject text not null,
  body text not null,
  status text not null default 'unsent',
  error text,
  attempts int not null default 0,
  next_at timestamptz not null default now(),
  read boolean not null default false,
  summary boolean not null default false,
  created_at timestamptz not null default now(),
  sent_at timestamptz,
  /** What carried it: smtp, sms, wecom, dingtalk, inbox, or outbox (no channel configured: kept here, shown in the app). */
  via text,
  unique (source_key, send_way, recipient)
);
create index notify_records_due on notify_records (next_at) where status = 'unsent';
create index notify_records_tenant on notify_records (tenant_id, created_at desc);
create index notify_records_inbox on notify_records (tenant_id) where send_way = 'inApp' and not read;
create table notify_storm (
  tenant_id text not null,
  minute timestamptz not null,
  send_way text not null,
  recipient text not null,
  contact_id text,
  suppressed int not null default 0,
  summarised boolean not null default false,
  primary key (tenant_id, minute, send_way, recipient)
);`;

/**
 * The in-app inbox per user: every user of the tenant who may list notification records (the route's permission)
 * sees the tenant's in-app messages, each with their own read marks: a message is read for a user when it is marked
 * (`notify_inbox_reads`) or at or below their "all read" mark (`notify_inbox_marks`), so "mark all read" is one row.
 */
/**
 * Issue 24: a record's error is a class of failure (OUTBOUND_REFUSED, HTTP_STATUS_4XX…), never a peer's answer. The
 * records of earlier releases held the answer (`HTTP 400: <body>`): each becomes the class it stands for.
 */
export const notifyRecordErrorClasses = `
update notify_records set error = case
    when error ~ '^HTTP 4' then 'HTTP_STATUS_4XX'
    when error ~ '^HTTP 5' then 'HTTP_STATUS_5XX'
    when error ~ '^HTTP 3' then 'HTTP_STATUS_3XX'
    when error ~ '^not JSON' then 'ANSWER_INVALID'
    when error ~ '^errcode ' then 'ANSWER_REJECTED'
    when error ~* '(fetch failed|ECONNREFUSED|ENOTFOUND|ECONNRESET|EHOSTUNREACH|ECONNECTION|ESOCKET)' then 'CONNECT_FAILED'
    when error ~* '(timeout|timed out|ETIMEDOUT)' then 'TIMEOUT'
    else 'SEND_FAILED' end
  where error is not null and error !~ '^[A-Z0-9_]+$';`;

export const notifyInboxSchema = `
create table notify_inbox_reads (
  record_id bigint not null references notify_records (id) on delete cascade,
  user_id text not null,
  primary key (user_id, record_id)
);
create table notify_inbox_marks (
  tenant_id text not null,
  user_id text not null,
  read_through bigint not null,
  primary key (tenant_id, user_id)
);`;

/** The unread messages are the newest: found by a range over this index from the user's "all read" mark. */
export const notifyInboxIndex = `create index notify_records_in_app on notify_records (tenant_id, id) where send_way = 'inApp';`;

/**
 * SQL: whether record `record` of tenant `tenant` is read for user `user` (placeholders such as `$1`, `$2`). The
 * mark is read once per statement (no correlation), so "not read" becomes a range `id > mark` over the index.
 */
export const readByUser = (record: string, tenant: string, user: string) =>
  `(${record}.id <= coalesce((select m.read_through from notify_inbox_marks m where m.tenant_id = ${tenant} and m.user_id = ${user}), 0)
    or exists (select 1 from notify_inbox_reads x where x.user_id = ${user} and x.record_id = ${record}.id))`;

/**
 * The storm caps' counters: notifications written per tenant (key '*') and per recipient (`<way>:<recipient>`) and
 * minute. Each is taken by a conditional upsert, whose row lock makes concurrent reactors (several processes) count
 * one after the other, so a cap holds across processes.
 */
export const notifyRateSchema = `
create table notify_rate (
  tenant_id text not null,
  minute timestamptz not null,
  key text not null,
  n int not null,
  primary key (tenant_id, minute, key)
);`;

/** An alarm pushed at an interval, still active: its records again, once per interval since it was raised. */
export async function repushActiveAlarms(db: Sql): Promise<void> {
  await db.query(
    `insert into notify_records (tenant_id, source_key, config_id, alarm_id, sn, group_id, send_way, type, recipient, contact_id, contact_name, subject, body)
     select r.tenant_id, r.source_key || '#' || k.n, r.config_id, r.alarm_id, r.sn, r.group_id, r.send_way, r.type, r.recipient, r.contact_id,
            r.contact_name, r.subject, r.body
     from rm_alarms a
     cross join lateral (select floor(extract(epoch from now() - a.raised_at) / 60 / a.push_interval_min)::int as n) k
     join notify_records r on r.alarm_id = a.id and r.source_key = 'alarm:' || a.id || ':' || r.config_id
     where a.status = 'active' and a.push = 'interval' and a.push_interval_min > 0 and k.n >= 1
     on conflict do nothing`,
  );
}

/** An open ticket: its assignee reminded every `reminderMin` minutes until it is closed. */
export async function remindOpenTickets(db: Sql, reminderMin: number): Promise<void> {
  await db.query(
    `insert into notify_records (tenant_id, source_key, alarm_id, ticket_id, sn, group_id, send_way, type, recipient, contact_id, contact_name, subject, body)
     select r.tenant_id, r.source_key || '#' || k.n, r.alarm_id, r.ticket_id, r.sn, r.group_id, r.send_way, r.type, r.recipient, r.contact_id,
            r.contact_name, '提醒 Reminder: ' || r.subject, r.body
     from notify_records r join rm_alarms a on a.ticket_id = r.ticket_id and a.ticket_open
     cross join lateral (select floor(extract(epoch from now() - r.created_at) / 60 / $1::int)::int as n) k
     where r.source_key = 'ticket:' || r.ticket_id and k.n >= 1
     on conflict do nothing`,
    [reminderMin],
  );
}

/** An in-app message of a rule chain's notify node (issue 19): once per source key, in the tenant's inbox. */
export async function enqueueInboxNotification(
  db: Sql,
  n: { tenantId: string; sourceKey: string; sn: string | null; subject: string; body: string },
): Promise<void> {
  await db.query(
    `insert into notify_records (tenant_id, source_key, sn, send_way, type, recipient, subject, body)
     values ($1, $2, $3, 'inApp', 'email', 'inbox', $4, $5) on conflict do nothing`,
    [n.tenantId, n.sourceKey, n.sn, n.subject, n.body],
  );
}

/** A record the delivery worker claimed: what it sends and how often it tried. */
export type DueNotification = {
  id: string;
  tenant_id: string;
  send_way: 'sms' | 'email' | 'inApp' | 'wechat';
  recipient: string;
  subject: string;
  body: string;
  /** What the record was made for (an alarm, a report's sending): the mail's attachments are filed under it. */
  source_key: string;
  attempts: number;
};

/**
 * Claims up to 100 due records for `leaseSeconds` (`for update skip locked`: several processes share the work and
 * none takes a record another holds; a sender that died lets its records go when the lease ends).
 */
export async function claimDueNotifications(db: Sql, leaseSeconds: number): Promise<DueNotification[]> {
  return (
    await db.query<DueNotification>(
      `update notify_records set next_at = now() + make_interval(secs => $1)
       where id in (select id from notify_records where status = 'unsent' and next_at <= now() order by id limit 100 for update skip locked)
       returning id::text, tenant_id, send_way, recipient, subject, body, source_key, attempts`,
      [leaseSeconds],
    )
  ).rows;
}

/** A claimed record delivered, and what carried it. */
export async function markNotificationSent(db: Sql, id: string, via: string): Promise<void> {
  await db.query(
    `update notify_records set status = 'sent', sent_at = now(), attempts = attempts + 1, error = null, via = $2 where id = $1 and status = 'unsent'`,
    [id, via],
  );
}

/** A claimed record not delivered: tried again in `retryInSeconds`, or failed once it has had `maxAttempts`. */
export async function markNotificationUndelivered(
  db: Sql,
  r: { id: string; attempts: number; errorClass: string; maxAttempts: number; retryInSeconds: number },
): Promise<void> {
  await db.query(
    `update notify_records set attempts = $2::int, error = $3,
       status = case when $2::int >= $4::int then 'failed' else 'unsent' end,
       next_at = now() + make_interval(secs => $5::float8) where id = $1 and status = 'unsent'`,
    [r.id, r.attempts, r.errorClass, r.maxAttempts, r.retryInSeconds],
  );
}

/** The storm caps' counters of minutes long past go; a storm's minute that is over gets one summary per recipient. */
export async function summariseStorms(db: Sql): Promise<void> {
  await db.query(`delete from notify_rate where minute < now() - interval '10 minutes'`);
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

/**
 * Files a mail of the outbox carries (a scheduled report's XLSX), once per source however many recipients its records
 * have: the delivery worker attaches those of the record's source key to an email.
 */
export const notifyAttachmentsSchema = `
create table notify_attachments (
  source_key text not null,
  filename text not null,
  content_type text not null,
  content bytea not null,
  created_at timestamptz not null default now(),
  primary key (source_key, filename)
);`;

/** The files filed for a mail's source key, by name. */
export async function mailAttachments(db: Sql, sourceKey: string): Promise<MailAttachment[]> {
  return (
    await db.query<MailAttachment>(
      `select filename, content_type as "contentType", content from notify_attachments where source_key = $1 order by filename`,
      [sourceKey],
    )
  ).rows;
}

/** Mail attachments a month old whose mails have all gone (or given up). */
export async function deleteSentAttachments(db: Sql): Promise<void> {
  await db.query(
    `delete from notify_attachments a where a.created_at < now() - interval '30 days'
       and not exists (select 1 from notify_records r where r.source_key = a.source_key and r.status = 'unsent')`,
  );
}
