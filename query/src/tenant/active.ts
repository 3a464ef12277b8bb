import { SYSTEM_TENANT } from '@iot/contracts';
import type { Sql } from '@iot/infra/postgres/sql.ts';

/**
 * Whether a tenant may act: approved and not stopped. The login, every token check and the MQTT
 * device authentication ask this one question.
 */
export async function isTenantActive(db: Sql, tenantId: string): Promise<boolean> {
  if (tenantId === SYSTEM_TENANT) return true;
  const row = (await db.query<{ status: string }>('select status from rm_tenants where id = $1', [tenantId])).rows[0];
  return row?.status === 'approved';
}
