import type { Sql } from '@iot/contracts/ports/sql.ts';
import { claimExisting, type Claim } from '../shared/claims.ts';

/** A dictionary type's code is unique within its tenant. */
export const dictCodeScope = (tenantId: string) => `dict:${tenantId}`;
export const dictCodeClaim = (tenantId: string, code: string, typeId: string): Claim => ({
  scope: dictCodeScope(tenantId),
  key: code,
  owner: typeId,
});

/** Whether another type of the tenant has the code in the read model (a type made before claims existed). */
export async function dictCodeTaken(db: Sql, tenantId: string, code: string, exceptTypeId: string): Promise<boolean> {
  const found = await db.query('select 1 from rm_dict_types where tenant_id = $1 and code = $2 and id <> $3 limit 1', [
    tenantId,
    code,
    exceptTypeId,
  ]);
  return found.rowCount > 0;
}

/** Codes of types created before claims existed are claimed by their types. */
export async function claimExistingDictCodes(db: Sql): Promise<void> {
  const types = await db.query<{ id: string; tenant_id: string; code: string }>('select id, tenant_id, code from rm_dict_types');
  await claimExisting(
    db,
    types.rows.map((t) => dictCodeClaim(t.tenant_id, t.code, t.id)),
  );
}
