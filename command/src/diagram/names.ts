import type { Lookups } from '@iot/contracts/ports/lookups.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { claimExisting, type Claim } from '../shared/claims.ts';

/** A topo element's name is unique within its tenant, whatever its case: the palette tells elements apart by name. */
export const topoElementNameScope = (tenantId: string) => `topoElement:${tenantId}`;
export const topoElementNameClaim = (tenantId: string, name: string, elementId: string): Claim => ({
  scope: topoElementNameScope(tenantId),
  key: name.trim().toLowerCase(),
  owner: elementId,
});

/** Names of elements created before claims existed are claimed by their elements (the first of a duplicate pair keeps it). */
export async function claimExistingTopoElementNames(db: Sql, lookups: Lookups): Promise<void> {
  await claimExisting(
    db,
    (await lookups.topoElementNames()).map((e) => topoElementNameClaim(e.tenantId, e.name, e.id)),
  );
}
