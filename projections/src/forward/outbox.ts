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

/** One message a rule chain's forward node sends (issue 19): into the outbox beside the forwarding rules' own. */
export async function enqueueForward(
  db: Sql,
  item: { tenantId: string; ruleId: string; serverId: string; deviceId: string; topic: string; payload: string },
): Promise<void> {
  await db.query(`insert into forward_outbox (tenant_id, rule_id, server_id, device_id, topic, payload) values ($1, $2, $3, $4, $5, $6)`, [
    item.tenantId,
    item.ruleId,
    item.serverId,
    item.deviceId,
    item.topic,
    item.payload,
  ]);
}

/** Dead letters of the tenant sent again: pending at once, their tries counted anew. Answers how many it found. */
export async function retryDeadLetters(db: Sql, tenantId: string, ids: readonly string[]): Promise<number> {
  const result = await db.query(
    `update forward_outbox set status = 'pending', attempts = 0, next_at = now(), error = null, claimed_until = null
     where tenant_id = $1 and id::text = any($2) and status = 'dead'`,
    [tenantId, ids],
  );
  return result.rowCount;
}
