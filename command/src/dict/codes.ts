import type { Lookups } from '@iot/contracts/ports/lookups.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { claimExisting, type Claim } from '../shared/claims.ts';

/** A dictionary type's code is unique within its tenant. */
export const dictCodeScope = (tenantId: string) => `dict:${tenantId}`;
export const dictCodeClaim = (tenantId: string, code: string, typeId: string): Claim => ({
  scope: dictCodeScope(tenantId),
  key: code,
  owner: typeId,
});

/** Codes of types created before claims existed are claimed by their types. */
export async function claimExistingDictCodes(db: Sql, lookups: Lookups): Promise<void> {
  await claimExisting(
    db,
    (await lookups.dictCodes()).map((t) => dictCodeClaim(t.tenantId, t.code, t.id)),
  );
}
