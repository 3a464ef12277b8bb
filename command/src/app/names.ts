import type { Lookups } from '@iot/contracts/ports/lookups.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { claimExisting, type Claim } from '../shared/claims.ts';

/** An app's name is unique within its tenant, whatever its case (issue 9: concurrent creates gave several). */
export const appNameScope = (tenantId: string) => `app:${tenantId}`;
export const appNameClaim = (tenantId: string, name: string, appId: string): Claim => ({
  scope: appNameScope(tenantId),
  key: name.toLowerCase(),
  owner: appId,
});

/** Names of apps created before claims existed are claimed by their apps (the first of a duplicate pair keeps it). */
export async function claimExistingAppNames(db: Sql, lookups: Lookups): Promise<void> {
  await claimExisting(
    db,
    (await lookups.appNames()).map((a) => appNameClaim(a.tenantId, a.name, a.id)),
  );
}
