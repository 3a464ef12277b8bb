import type { ForwardMqtt } from '@iot/contracts/ports/forward.ts';
import type { OutboundErrorClass, OutboundHttp } from '@iot/contracts/ports/outbound-http.ts';
import { outboundErrorClasses } from '@iot/contracts/ports/outbound-http.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { packedMessages } from './outbox.ts';
import { forwardServerById, type ForwardServerRecord } from './read.ts';

type Claimed = {
  id: string;
  tenantId: string;
  serverId: string;
  deviceId: string;
  topic: string | null;
  payload: string;
  attempts: number;
  messageId: string | null;
  /** Messages the row holds: above 1, `payload` and `messageId` are JSON arrays of them (outbox.ts, groupOutboxItems). */
  messages: number;
};
/** One message of a claimed row (`id` is the row's): `index` is its place in the row, `group` the row's messages when several. */
type Message = Claimed & { index: number; group: { payloads: string[]; ids: string[] } | null };

/** A claimed row's messages, in order. */
function messagesOf(row: Claimed): Message[] {
  if (row.messages <= 1) return [{ ...row, index: 0, group: null }];
  const group = { payloads: JSON.parse(row.payload) as string[], ids: JSON.parse(row.messageId!) as string[] };
  return group.payloads.map((payload, index) => ({ ...row, payload, messageId: group.ids[index] ?? null, index, group }));
}

export interface ForwardDeliveryOptions {
  db: Sql;
  outbound: OutboundHttp;
  mqtt: ForwardMqtt;
  /** The first retry's wait; each next one doubles, up to five minutes. */
  backoffMs: number;
  /** Tries before a message becomes a dead letter. */
  maxAttempts: number;
  pollMs?: number;
  /** How long a claim holds: past it, another process takes the rows of a process that died delivering them. */
  leaseMs?: number;
  log(detail: { serverId: string; deviceId: string; error: OutboundErrorClass; detail: string }): void;
  onError(error: unknown): void;
}

/** Messages of one (server, device) taken in a round (whole rows: about as many), and (server, device) groups delivered side by side. */
const PER_GROUP = 50;
const PARALLEL = 16;
const MAX_BACKOFF_MS = 300_000;
/** What a delivery round took, and whether it left due rows of a group behind. */
interface Round {
  taken: number;
  behind: boolean;
}

/** A payload as an element of a batch: itself when it is JSON, else as a JSON string. */
const asJson = (payload: string): string => {
  try {
    JSON.parse(payload);
    return payload;
  } catch {
    return JSON.stringify(payload);
  }
};
const classOf = (error: unknown): OutboundErrorClass => {
  const errorClass = error && typeof error === 'object' && 'errorClass' in error ? error.errorClass : null;
  return outboundErrorClasses.find((c) => c === errorClass) ?? 'SEND_FAILED';
};
const statusClass = (status: number): OutboundErrorClass =>
  status >= 500 ? 'HTTP_STATUS_5XX' : status >= 400 ? 'HTTP_STATUS_4XX' : 'HTTP_STATUS_3XX';

/**
 * The forwarding outbox's delivery worker: at least once, in order per server and device. Each round claims, for
 * every (server, device) whose oldest pending message is due, up to PER_GROUP of its oldest messages, and sends them
 * in order; the first failure stops its group (the rest wait behind it), is retried with doubling back-off, and after
 * `maxAttempts` becomes a dead letter, which lets the ones after it go. Claims carry a lease, so several processes
 * can run it and a crash hands its rows to another after the lease.
 */
export function startForwardDelivery(options: ForwardDeliveryOptions) {
  const { db } = options;
  const pollMs = options.pollMs ?? 200;
  const leaseMs = options.leaseMs ?? 60_000;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<Round> | null = null;

  /** The (server, device) groups a round leased, to hand back at its end, with the lease's end that marks it as this round's. */
  type Group = { serverId: string; deviceId: string; until: string };

  /**
   * Leases every (server, device) whose oldest pending message is due and that no other round holds, then reads up to
   * PER_GROUP of each one's oldest messages. Two statements: the rows are read after the lease is held, so a row that
   * another process delivered and deleted before handing its lease back is not seen again.
   */
  async function claim(): Promise<{ groups: Group[]; rows: Claimed[] }> {
    const groups = (
      await db.query<Group>(
        `with heads as (
           select distinct on (server_id, device_id) server_id, device_id, next_at
           from forward_outbox where status = 'pending' order by server_id, device_id, id)
         insert into forward_outbox_leases as l (server_id, device_id, claimed_until)
         select server_id, device_id, now() + make_interval(secs => $1::float8 / 1000) from heads where next_at <= now()
         on conflict (server_id, device_id) do update set claimed_until = excluded.claimed_until
           where l.claimed_until is null or l.claimed_until <= now()
         returning l.server_id as "serverId", l.device_id as "deviceId", l.claimed_until::text as until`,
        [leaseMs],
      )
    ).rows;
    if (groups.length === 0) return { groups, rows: [] };
    const rows = await db.query<Claimed>(
      `select o.id::text, o.tenant_id as "tenantId", o.server_id as "serverId", o.device_id as "deviceId", o.topic, o.payload,
         o.attempts, o.message_id as "messageId", o.messages
       from unnest($1::text[], $2::text[]) as g(server_id, device_id)
       cross join lateral (
         -- PER_GROUP messages, not rows: a row of several counts as its messages (the row that reaches it is taken whole).
         select * from (
           select o.*, sum(o.messages) over (order by o.id) as upto from forward_outbox o
           where o.server_id = g.server_id and o.device_id = g.device_id and o.status = 'pending'
           order by o.id limit $3) w
         where w.upto - w.messages < $3) o`,
      [groups.map((g) => g.serverId), groups.map((g) => g.deviceId), PER_GROUP],
    );
    return { groups, rows: rows.rows.sort((a, b) => Number(BigInt(a.id) - BigInt(b.id))) };
  }

  /** The round's groups handed back: delivered, failed (their head waits for its back-off) or not reached. */
  async function release(groups: Group[]) {
    await db.query(
      // Only a lease this round still holds: one that lapsed and was taken by another round keeps its holder.
      `update forward_outbox_leases l set claimed_until = null
       from unnest($1::text[], $2::text[], $3::timestamptz[]) as g(server_id, device_id, until)
       where l.server_id = g.server_id and l.device_id = g.device_id and l.claimed_until = g.until`,
      [groups.map((g) => g.serverId), groups.map((g) => g.deviceId), groups.map((g) => g.until)],
    );
  }

  async function secretOf(server: ForwardServerRecord): Promise<string | null> {
    if (!server.hasPassword) return null;
    const rows = await db.query<{ password: string }>('select password from forward_server_secrets where server_id = $1', [server.id]);
    return rows.rows[0]?.password ?? null;
  }

  /** Sends one message; answers the failure's class, or null when it was delivered. */
  async function send(server: ForwardServerRecord, password: string | null, row: Message): Promise<OutboundErrorClass | null> {
    try {
      if (server.type === 'http') {
        const answer = await options.outbound.request(server.url!, {
          method: 'POST',
          // At least once: a target drops a repeat by the message's id.
          headers: row.messageId
            ? { 'content-type': 'application/json', 'x-message-id': row.messageId }
            : { 'content-type': 'application/json' },
          body: row.payload,
          timeoutMs: 10_000,
        });
        if (answer.ok) return null;
        options.log({ serverId: server.id, deviceId: row.deviceId, error: statusClass(answer.status), detail: `HTTP ${answer.status}` });
        return statusClass(answer.status);
      }
      const target = {
        key: `${server.id}:${server.ip}:${server.port}:${server.tls}:${server.username}:${server.clientId}:${password}`,
        host: server.ip,
        port: server.port,
        tls: server.tls,
        username: server.username,
        password,
        clientId: server.clientId,
      };
      await options.mqtt.publish(target, [{ topic: row.topic ?? `forward/${row.deviceId}`, payload: row.payload }]);
      return null;
    } catch (error) {
      const errorClass = classOf(error);
      options.log({ serverId: server.id, deviceId: row.deviceId, error: errorClass, detail: (error as Error).message });
      return errorClass;
    }
  }

  /** A server and its password, read once per round for all its groups. */
  type Target = { server: ForwardServerRecord | null; password: string | null };
  async function targetOf(serverId: string): Promise<Target> {
    const server = await forwardServerById(db, serverId);
    return { server, password: server ? await secretOf(server) : null };
  }

  /**
   * Marks a failure on a device's head message (attempts, back-off, dead letter); the rest wait behind it for the next
   * round. Its row keeps the messages from it on: those before it in the row were delivered, and are not sent again.
   */
  async function failed(message: Message, error: OutboundErrorClass, gone: boolean) {
    const attempts = message.attempts + 1;
    // A target that is gone holds nothing back: its messages are dead letters at once.
    const dead = attempts >= options.maxAttempts || gone;
    const wait = Math.min(options.backoffMs * 2 ** (attempts - 1), MAX_BACKOFF_MS);
    const { group, index } = message;
    const left = group && index > 0 ? packedMessages(group.payloads.slice(index), group.ids.slice(index)) : null;
    await db.query(
      `update forward_outbox set attempts = $2, error = $3,
         status = case when $4 then 'dead' else 'pending' end, next_at = now() + make_interval(secs => $5::float8 / 1000),
         payload = coalesce($6, payload), message_id = coalesce($7, message_id), messages = coalesce($8, messages)
       where id = $1`,
      [message.id, attempts, error, dead, wait, left?.payload ?? null, left?.messageId ?? null, left?.messages ?? null],
    );
  }

  /** Sends a group's messages in order until one fails; answers those delivered. */
  async function deliverGroup(rows: Message[], target: Target): Promise<Message[]> {
    const first = rows[0]!;
    const { server, password } = target;
    const delivered: Message[] = [];
    let failure: { row: Message; error: OutboundErrorClass } | null = null;
    if (!server || server.tenantId !== first.tenantId) failure = { row: first, error: 'SEND_FAILED' };
    else {
      for (const row of rows) {
        const error = await send(server, password, row);
        if (error) {
          failure = { row, error };
          break;
        }
        delivered.push(row);
      }
    }
    if (failure) await failed(failure.row, failure.error, !server);
    return delivered;
  }

  /** One POST of several messages (a server with `batchSize` above 1): a JSON array of `{ id, deviceId, payload }`. */
  async function sendBatch(server: ForwardServerRecord, rows: Message[]): Promise<OutboundErrorClass | null> {
    const body = `[${rows.map((row) => `{"id":${JSON.stringify(row.messageId ?? row.id)},"deviceId":${JSON.stringify(row.deviceId)},"payload":${asJson(row.payload)}}`).join(',')}]`;
    try {
      const answer = await options.outbound.request(server.url!, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-message-count': String(rows.length) },
        body,
        timeoutMs: 10_000,
      });
      if (answer.ok) return null;
      options.log({
        serverId: server.id,
        deviceId: rows[0]!.deviceId,
        error: statusClass(answer.status),
        detail: `HTTP ${answer.status} (${rows.length} messages)`,
      });
      return statusClass(answer.status);
    } catch (error) {
      const errorClass = classOf(error);
      options.log({ serverId: server.id, deviceId: rows[0]!.deviceId, error: errorClass, detail: (error as Error).message });
      return errorClass;
    }
  }

  /**
   * A batching server's rows of a round, every device's in order (the rows are sorted by id), sent `batchSize` to a
   * POST, one POST after the other. A POST that fails counts one attempt on the head row of each of its devices (its
   * back-off holds that device back), and hands back every row not yet delivered; the next round claims them again.
   */
  async function deliverBatches(rows: Message[], target: Target): Promise<Message[]> {
    const { server } = target;
    const size = server?.batchSize ?? 1;
    const delivered: Message[] = [];
    for (let at = 0; at < rows.length; at += size) {
      const batch = rows.slice(at, at + size);
      const error = server ? await sendBatch(server, batch) : 'SEND_FAILED';
      if (!error) {
        delivered.push(...batch);
        continue;
      }
      const heads = new Map<string, Message>();
      for (const row of batch) if (!heads.has(row.deviceId)) heads.set(row.deviceId, row);
      for (const head of heads.values()) await failed(head, error, !server);
      break;
    }
    return delivered;
  }

  /**
   * One round: answers how many messages it took, and whether it left due rows of a group behind (it took PER_GROUP
   * of one). Servers are read once per round and what was delivered is deleted in one statement at its end (still
   * under the claim's lease; a crash before it sends those again, at least once).
   */
  async function round(): Promise<Round> {
    const { groups: leased, rows } = await claim();
    const perGroup = new Map<string, number>();
    let behind = false;
    for (const row of rows) {
      const key = `${row.serverId}\0${row.deviceId}`;
      const taken = (perGroup.get(key) ?? 0) + row.messages;
      perGroup.set(key, taken);
      if (taken >= PER_GROUP) behind = true;
    }
    const targets = new Map<string, Target>();
    await Promise.all([...new Set(rows.map((r) => r.serverId))].map(async (serverId) => targets.set(serverId, await targetOf(serverId))));
    // A batching server's rows of a tenant are one queue entry (sent in order, several to a POST); any other server's, one entry per device.
    const groups = new Map<string, Message[]>();
    for (const row of rows.flatMap(messagesOf)) {
      const server = targets.get(row.serverId)!.server;
      const batching = server && server.type === 'http' && server.batchSize > 1 && server.tenantId === row.tenantId;
      const key = batching ? `${row.serverId}` : `${row.serverId}\0${row.deviceId}`;
      const group = groups.get(key);
      if (group) group.push(row);
      else groups.set(key, [row]);
    }
    const queue = [...groups.entries()];
    const delivered: Message[] = [];
    try {
      await Promise.all(
        Array.from({ length: Math.min(PARALLEL, queue.length) }, async () => {
          for (let entry = queue.shift(); entry; entry = queue.shift()) {
            const [key, group] = entry;
            const target = targets.get(group[0]!.serverId)!;
            await (key.includes('\0') ? deliverGroup(group, target) : deliverBatches(group, target)).then(
              (ids) => delivered.push(...ids),
              options.onError,
            );
          }
        }),
      );
    } finally {
      // A row goes once all its messages are delivered (one that failed part way was cut to what is left).
      const sent = new Map<string, number>();
      for (const message of delivered) sent.set(message.id, (sent.get(message.id) ?? 0) + 1);
      const done = rows.filter((row) => sent.get(row.id) === row.messages).map((row) => row.id);
      if (done.length > 0) await db.query('delete from forward_outbox where id = any($1::bigint[])', [done]);
      // After the delete: a round that takes a group once it is handed back no longer sees what was delivered.
      if (leased.length > 0) await release(leased);
    }
    return { taken: rows.length, behind };
  }

  function schedule(ms: number) {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void tick(), ms);
  }
  async function tick() {
    timer = null;
    if (running) return schedule(pollMs);
    running = round();
    let behind = false;
    try {
      ({ behind } = await running);
    } catch (error) {
      options.onError(error);
    } finally {
      running = null;
    }
    // The claim scans every pending row whatever it takes: a round that took all that was due waits for the poll, so
    // that a steady stream goes in a few large rounds rather than one claim for every few messages.
    schedule(behind ? 0 : pollMs);
  }
  schedule(0);

  return {
    /** New messages are in the outbox: a round now rather than at the next poll. */
    kick() {
      if (!running) schedule(0);
    },
    /** Rounds until one takes nothing (what is due now is delivered or waits for its retry): for tests and shutdown. */
    async drain() {
      for (;;) {
        while (running) await running.catch(() => undefined);
        running = round();
        const { taken } = await running.finally(() => (running = null));
        if (taken === 0) return;
      }
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
export type ForwardDelivery = ReturnType<typeof startForwardDelivery>;
