import type { Sql } from '@iot/contracts/ports/sql.ts';

/**
 * The passwords of MQTT servers forwarded to, beside the log (never in an event): the platform logs in with them, so
 * they are kept as given, like a gateway's MQTT config password; the API answers only whether one is set.
 */
export const forwardSecretsSchema = `
create table forward_server_secrets (
  server_id text primary key,
  tenant_id text not null,
  password text not null,
  updated_at timestamptz not null default now()
);`;

/** A string sets the password, null removes it, undefined keeps it. */
export async function storeServerPassword(db: Sql, tenantId: string, serverId: string, password: string | null | undefined): Promise<void> {
  if (password === undefined) return;
  if (password === null) {
    await db.query('delete from forward_server_secrets where server_id = $1 and tenant_id = $2', [serverId, tenantId]);
    return;
  }
  await db.query(
    `insert into forward_server_secrets (server_id, tenant_id, password) values ($1, $2, $3)
     on conflict (server_id) do update set password = $3, updated_at = now() where forward_server_secrets.tenant_id = $2`,
    [serverId, tenantId, password],
  );
}

export async function serverPassword(db: Sql, tenantId: string, serverId: string): Promise<string | null> {
  const rows = await db.query<{ password: string }>('select password from forward_server_secrets where server_id = $1 and tenant_id = $2', [
    serverId,
    tenantId,
  ]);
  return rows.rows[0]?.password ?? null;
}
