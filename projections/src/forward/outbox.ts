import type { Sql } from '@iot/contracts/ports/sql.ts';

/**
 * The forwarding outbox: one row per message and rule, written as telemetry is stored, delivered by the worker
 * (delivery.ts) at least once, in order per server and device: only the oldest pending rows of a (server, device)
 * are taken, and a failed one holds back the ones after it until it is delivered or given up as a dead letter.
 * Not a read model: a rebuild never sends again.
 */
export const forwardOutboxSchema = `
create table forward_outbox (
  id bigint generated always as identity primary key,
  tenant_id text not null,
  rule_id text not null,
  server_id text not null,
  device_id text not null,
  topic text,
  payload text not null,
  status text not null default 'pending',
  attempts int not null default 0,
  next_at timestamptz not null default now(),
  claimed_until timestamptz,
  error text,
  created_at timestamptz not null default now()
);
create index forward_outbox_pending on forward_outbox (server_id, device_id, id) where status = 'pending';
create index forward_outbox_dead on forward_outbox (tenant_id, id desc) where status = 'dead';`;

/**
 * The message a row forwards (a rule chain's message id): the target is sent the id to drop a repeat. (The unique
 * index, released here, is dropped by `forwardOutboxWithoutMessageIndex`.)
 */
export const forwardOutboxMessageIds = `
alter table forward_outbox add column message_id text;
create unique index forward_outbox_message on forward_outbox (rule_id, server_id, message_id) where message_id is not null;`;

/**
 * Claims by (server, device) rather than by row: a round leases each group it takes here, once, instead of writing
 * every one of its messages a second time (a new row version and an entry in each of the outbox's three indexes),
 * which made the claim the outbox's costliest statement. A message row is now written once and deleted once. The
 * claims in flight when this runs move here, so that no group is sent twice by two processes across the upgrade.
 */
export const forwardOutboxLeases = `
create table forward_outbox_leases (
  server_id text not null,
  device_id text not null,
  claimed_until timestamptz,
  primary key (server_id, device_id)
);
insert into forward_outbox_leases (server_id, device_id, claimed_until)
  select server_id, device_id, max(claimed_until) from forward_outbox
  where status = 'pending' and claimed_until > now() group by server_id, device_id;`;

/**
 * The outbox written at its cost: its statement was PostgreSQL's costliest in the `rule-chain` bench, and of it the
 * unique index on message ids and the `on conflict` it served took two fifths (of a 565-row write, in one run: 1.00 with
 * both, 0.79 without the `on conflict`, 0.61 without the index either; in the bench itself, 103-152 µs a row before, 49-50 after). What they bought was narrow: a message run
 * again after a crash was not enqueued again only while its first row still waited; once delivered, it went again
 * all the same. So forwarding is at least once by the message's id alone, as it already was past that window: a
 * message run twice goes twice under one id, and the target drops the repeat. `claimed_until` is unused since the
 * leases (forward_outbox_leases hold the claims). A process of the release before, still running when this applies,
 * fails its outbox inserts (their `on conflict` names the index): processes that forward are upgraded together.
 */
export const forwardOutboxWithoutMessageIndex = `
drop index forward_outbox_message;
alter table forward_outbox drop column claimed_until;`;

/**
 * A row may hold several messages of one device (`messages` above 1): a rule chain's batch forwards several messages
 * of each device at once, and a row for each was the costliest part of a chain's forwarding (in PostgreSQL, a row's
 * tuple and its two index entries written, then read and deleted by the delivery; in the `rule-chain` bench one insert
 * per message took more than half of PostgreSQL's time). Such a row's `payload` and `message_id` are JSON arrays of
 * its messages' payloads and ids, in order; a row of one message is as before.
 */
export const forwardOutboxGroupedRows = `
alter table forward_outbox add column messages int not null default 1;`;

/** The outbox's tables as its migrations leave them: for tests and benches that start from an empty database. */
export const forwardOutboxTables = [
  forwardOutboxSchema,
  forwardOutboxMessageIds,
  forwardOutboxLeases,
  forwardOutboxWithoutMessageIndex,
  forwardOutboxGroupedRows,
].join('\n');

/** A row of the outbox as it is written: one message for one server. */
export interface OutboxItem {
  tenantId: string;
  ruleId: string;
  serverId: string;
  deviceId: string;
  topic: string | null;
  payload: string;
  /** The message it forwards, when it has a durable id (a rule chain's). */
  messageId?: string | null;
}

/** A row as it is written: one message, or (`messages` above 1) several of one device, as `groupOutboxItems` makes them. */
export type OutboxRow = OutboxItem & { messages?: number };

/** Messages of one device in a row at most: a row stays a few POSTs' worth. */
const ROW_MESSAGES = 100;

/**
 * Messages into rows, in order: each device's consecutive messages of one tenant, rule, server and topic share a
 * row (a change of topic starts the device's next row, so that its messages still go out in the order they came).
 * Only messages with an id are grouped: a grouped message is told from its row's others by its own id, the same in
 * every attempt; a message without one stays a row of its own.
 */
export function groupOutboxItems(items: readonly OutboxItem[]): OutboxRow[] {
  type Open = { first: OutboxItem; payloads: string[]; ids: string[] };
  const rows: Array<OutboxRow | Open> = [];
  const open = new Map<string, Open>();
  for (const item of items) {
    const key = `${item.tenantId}\0${item.ruleId}\0${item.serverId}\0${item.deviceId}`;
    if (item.messageId == null) {
      // The device's later messages go in a row after this one.
      open.delete(key);
      rows.push(item);
      continue;
    }
    const group = open.get(key);
    if (group && group.first.topic === item.topic && group.payloads.length < ROW_MESSAGES) {
      group.payloads.push(item.payload);
      group.ids.push(item.messageId);
      continue;
    }
    const opened: Open = { first: item, payloads: [item.payload], ids: [item.messageId] };
    rows.push(opened);
    open.set(key, opened);
  }
  return rows.map((row) => {
    if (!('payloads' in row)) return row;
    if (row.payloads.length === 1) return row.first;
    return { ...row.first, ...packedMessages(row.payloads, row.ids) };
  });
}

/** A row's columns for its messages, in order: one message as itself, several as JSON arrays of payloads and ids. */
export function packedMessages(payloads: readonly string[], ids: readonly string[]) {
  return payloads.length === 1
    ? { payload: payloads[0]!, messageId: ids[0]!, messages: 1 }
    : { payload: JSON.stringify(payloads), messageId: JSON.stringify(ids), messages: payloads.length };
}

/**
 * Rows into the outbox in one statement, their ids in the order given (the order each device's messages go out in).
 * A batch's rows mostly share their tenant, rule and server: those go once each, and a row names its own by number,
 * rather than the same three strings escaped, sent and parsed again for every row.
 */
export async function insertOutboxRows(db: Sql, rows: readonly OutboxRow[]): Promise<void> {
  const tenants: string[] = [];
  const rules: string[] = [];
  const servers: string[] = [];
  const routeOf = new Map<string, number>();
  const route = new Array<number>(rows.length);
  const devices = new Array<string>(rows.length);
  const topics = new Array<string | null>(rows.length);
  const payloads = new Array<string>(rows.length);
  const messageIds = new Array<string | null>(rows.length);
  const counts = new Array<number>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const key = `${row.tenantId}\0${row.ruleId}\0${row.serverId}`;
    let n = routeOf.get(key);
    if (n === undefined) {
      n = tenants.push(row.tenantId);
      rules.push(row.ruleId);
      servers.push(row.serverId);
      routeOf.set(key, n);
    }
    route[i] = n;
    devices[i] = row.deviceId;
    topics[i] = row.topic;
    payloads[i] = row.payload;
    messageIds[i] = row.messageId ?? null;
    counts[i] = row.messages ?? 1;
  }
  await db.query(
    `insert into forward_outbox (tenant_id, rule_id, server_id, device_id, topic, payload, message_id, messages)
     select ($1::text[])[k], ($2::text[])[k], ($3::text[])[k], d, tp, p, mi, c
       from unnest($4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int[]) with ordinality as m(k, d, tp, p, mi, c, n)
       order by n`,
    [tenants, rules, servers, route, devices, topics, payloads, messageIds, counts],
  );
}

/** Rows written in one statement at most. */
const ENQUEUE_BATCH = 2_000;

/**
 * What rule chains' forward nodes send (issue 19), into the outbox by group commit: the messages that arrive while a
 * write is running go together in the next one, so a busy chain pays one statement per batch and an idle one waits
 * for no timer. Each call resolves once its row is in the outbox (or rejects with its batch's error); the calls of a
 * batch share its one promise, as they share its outcome. One write at a time keeps the outbox ids in the order the
 * messages came.
 */
export function createForwardEnqueuer(db: Sql) {
  type Batch = { items: OutboxItem[]; done: Promise<void>; resolve(): void; reject(error: unknown): void };
  const open = (): Batch => {
    const batch = { items: [] } as unknown as Batch;
    batch.done = new Promise<void>((resolve, reject) => {
      batch.resolve = resolve;
      batch.reject = reject;
    });
    return batch;
  };
  /** Batches waiting for their write, oldest first; the last one takes the new messages until it is full. */
  const waiting: Batch[] = [];
  let writing = false;
  async function drain() {
    for (let batch = waiting.shift(); batch; batch = waiting.shift()) {
      try {
        await insertOutboxRows(db, groupOutboxItems(batch.items));
        batch.resolve();
      } catch (error) {
        batch.reject(error);
      }
    }
    writing = false;
  }
  return (item: OutboxItem): Promise<void> => {
    let batch = waiting.at(-1);
    if (!batch || batch.items.length >= ENQUEUE_BATCH) waiting.push((batch = open()));
    batch.items.push(item);
    // The messages of this turn of the event loop join the first write.
    if (!writing) {
      writing = true;
      setImmediate(() => void drain());
    }
    return batch.done;
  };
}

/** Dead letters of the tenant sent again: pending at once, their tries counted anew. Answers how many it found. */
export async function retryDeadLetters(db: Sql, tenantId: string, ids: readonly string[]): Promise<number> {
  const result = await db.query(
    `update forward_outbox set status = 'pending', attempts = 0, next_at = now(), error = null
     where tenant_id = $1 and id::text = any($2) and status = 'dead'`,
    [tenantId, ids],
  );
  return result.rowCount;
}
