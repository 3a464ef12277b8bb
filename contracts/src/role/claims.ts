/**
 * Where a role's name is claimed (command/src/shared/claims.ts), read by the name check too: one scope per
 * tenant, the name in lower case (spec §5: unique within the tenant, whatever its case).
 */
export const roleNameScope = (tenantId: string) => `role:${tenantId}`;
export const roleNameKey = (name: string) => name.toLowerCase();
