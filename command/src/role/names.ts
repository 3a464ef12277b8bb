import { roleNameKey, roleNameScope } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { claimExisting, type Claim } from '../shared/claims.ts';

/** A role name is unique within its tenant, whatever its case (spec §5 'Role already exists'). */
export const roleNameClaim = (tenantId: string, name: string, roleId: string): Claim => ({
  scope: roleNameScope(tenantId),
  key: roleNameKey(name),
  owner: roleId,
});

/** Whether another role of the tenant has the name in the read model: a role no claim covers yet (the built-in ones). */
export async function roleNameTaken(db: Sql, tenantId: string, name: string, exceptRoleId: string): Promise<boolean> {
  const found = await db.query('select 1 from rm_roles where tenant_id = $1 and lower(name) = lower($2) and id <> $3 limit 1', [
    tenantId,
    name,
    exceptRoleId,
  ]);
  return found.rowCount > 0;
}

/** Names of roles created before claims existed, or by the onboarding workflow, are claimed by their roles. */
export async function claimExistingRoleNames(db: Sql): Promise<void> {
  const roles = await db.query<{ id: string; tenant_id: string; name: string }>('select id, tenant_id, name from rm_roles');
  await claimExisting(
    db,
    roles.rows.map((r) => roleNameClaim(r.tenant_id, r.name, r.id)),
  );
}
