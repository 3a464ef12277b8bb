import { roleNameKey, roleNameScope } from '@iot/contracts';
import type { Lookups } from '@iot/contracts/ports/lookups.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { claimExisting, type Claim } from '../shared/claims.ts';

/** A role name is unique within its tenant, whatever its case (spec §5 'Role already exists'). */
export const roleNameClaim = (tenantId: string, name: string, roleId: string): Claim => ({
  scope: roleNameScope(tenantId),
  key: roleNameKey(name),
  owner: roleId,
});

/** Names of roles created before claims existed, or by the onboarding workflow, are claimed by their roles. */
export async function claimExistingRoleNames(db: Sql, lookups: Lookups): Promise<void> {
  await claimExisting(
    db,
    (await lookups.roleNames()).map((r) => roleNameClaim(r.tenantId, r.name, r.id)),
  );
}
