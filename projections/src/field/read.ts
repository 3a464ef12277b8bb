import type { FieldDefinition, SiteParameters } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';

/** A site's parameters as the fieldConfig projection keeps them (rm_field_sites). */
export type FieldSiteRecord = SiteParameters & { groupId: string; updatedAt: Date };

const SITE = `group_id as "groupId", commissioning_date as "commissioningDate", rated_capacity_kw as "ratedCapacityKw", address,
  contacts, custom, updated_at as "updatedAt"`;

/** The saved parameters of a site of the tenant, or null when never saved. */
export async function fieldSiteOf(db: Sql, tenantId: string, groupId: string): Promise<FieldSiteRecord | null> {
  return (
    (await db.query<FieldSiteRecord>(`select ${SITE} from rm_field_sites where tenant_id = $1 and group_id = $2`, [tenantId, groupId]))
      .rows[0] ?? null
  );
}

/** The groups of the tenant whose parameters have been saved. */
export async function configuredSiteIds(db: Sql, tenantId: string): Promise<Set<string>> {
  const rows = (await db.query<{ groupId: string }>('select group_id as "groupId" from rm_field_sites where tenant_id = $1', [tenantId]))
    .rows;
  return new Set(rows.map((r) => r.groupId));
}

/** The tenant's custom field definitions, in the order they were first defined. */
export async function fieldDefinitionsOf(db: Sql, tenantId: string): Promise<FieldDefinition[]> {
  return (
    await db.query<FieldDefinition>(
      `select key, label_zh as "labelZh", label_en as "labelEn", type, required from rm_field_definitions
       where tenant_id = $1 order by position`,
      [tenantId],
    )
  ).rows;
}
