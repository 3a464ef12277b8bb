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
