import type { Sql } from '@iot/contracts/ports/sql.ts';

/**
 * Calls per subscription: one row each, incremented by one statement (an upsert), so that concurrent calls never
 * lose a count. Not a read model: a rebuild of the market projection keeps the counts.
 */
export const marketUsageSchema = `
create table market_usage (
  subscription_id text primary key,
  tenant_id text not null,
  calls bigint not null default 0,
  last_call_at timestamptz
);`;

/** Counts one call under a subscription; answers the count with it. */
export async function countCall(db: Sql, tenantId: string, subscriptionId: string): Promise<number> {
  const rows = await db.query<{ calls: string }>(
    `insert into market_usage (subscription_id, tenant_id, calls, last_call_at) values ($1, $2, 1, now())
     on conflict (subscription_id) do update set calls = market_usage.calls + 1, last_call_at = now() returning calls`,
    [subscriptionId, tenantId],
  );
  return Number(rows.rows[0]!.calls);
}
