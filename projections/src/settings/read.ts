import type { Sql } from '@iot/contracts/ports/sql.ts';

/** A tenant's own system settings as the settings projection keeps them (rm_settings): what it has not set is null. */
export type SettingsRecord = {
  tenantId: string;
  systemName: string | null;
  logoSha256: string | null;
  updatedAt: Date;
};

/** The settings of these tenants that set any (a tenant that never did has no record). */
export async function settingsOfTenants(db: Sql, tenantIds: string[]): Promise<SettingsRecord[]> {
  return (
    await db.query<SettingsRecord>(
      `select tenant_id as "tenantId", system_name as "systemName", logo_sha256 as "logoSha256", updated_at as "updatedAt"
       from rm_settings where tenant_id = any($1)`,
      [tenantIds],
    )
  ).rows;
}
