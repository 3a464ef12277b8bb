import { DomainError, SYSTEM_TENANT } from '@iot/contracts';
import type { Lookups, TenantTable } from '@iot/contracts/ports/lookups.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';

/** Refuses (NOT_FOUND, naming `field` when given) an id that is not a row of the caller's tenant. */
export async function assertOwnRow(db: Sql, table: TenantTable, id: string, tenantId: string, field?: string): Promise<void> {
  const found = await db.query(`select 1 from ${table} where id = $1 and tenant_id = $2`, [id, tenantId]);
  if (found.rowCount === 0) throw new DomainError('NOT_FOUND', field ? { field } : undefined);
}

/** Permissions a user's roles grant: the union of the permissions of their menus (only roles of the user's own tenant count). */
export async function rolePermissions(db: Sql, userId: string): Promise<Set<string>> {
  const result = await db.query<{ permission: string }>(
    `select distinct m.permission from rm_users u
     join rm_roles r on r.id = any(u.role_ids) and r.tenant_id = u.tenant_id
     join rm_menus m on m.id = any(r.menu_ids)
     where u.id = $1 and m.permission is not null`,
    [userId],
  );
  return new Set(result.rows.map((r) => r.permission));
}

/** The ids of a group and every group below it, in one tenant: the data scope of a `stationId`. */
export async function groupSubtree(db: Sql, tenantId: string, groupId: string): Promise<string[]> {
  const result = await db.query<{ id: string }>(
    `with recursive tree(id) as (
       select id from rm_groups where tenant_id = $1 and id = $2
       union
       select g.id from rm_groups g join tree on g.parent_id = tree.id where g.tenant_id = $1
     ) select id from tree`,
    [tenantId, groupId],
  );
  return result.rows.map((r) => r.id);
}

/** A group and its ancestors up to the root, in one tenant. */
export async function groupAncestry(db: Sql, tenantId: string, groupId: string): Promise<string[]> {
  const result = await db.query<{ id: string }>(
    `with recursive up(id, parent_id) as (
       select id, parent_id from rm_groups where tenant_id = $1 and id = $2
       union
       select g.id, g.parent_id from rm_groups g join up on g.id = up.parent_id where g.tenant_id = $1
     ) select id from up`,
    [tenantId, groupId],
  );
  return result.rows.map((r) => r.id);
}

/**
 * Whether a tenant may act: approved and not stopped. The login, every token check and the MQTT
 * device authentication ask this one question.
 */
export async function isTenantActive(db: Sql, tenantId: string): Promise<boolean> {
  if (tenantId === SYSTEM_TENANT) return true;
  const row = (await db.query<{ status: string }>('select status from rm_tenants where id = $1', [tenantId])).rows[0];
  return row?.status === 'approved';
}

/** The Lookups port over the read models' database. */
export const createLookups = (db: Sql): Lookups => ({
  assertOwnRow: (table, id, tenantId, field) => assertOwnRow(db, table, id, tenantId, field),
  groupSubtree: (tenantId, groupId) => groupSubtree(db, tenantId, groupId),
  groupAncestry: (tenantId, groupId) => groupAncestry(db, tenantId, groupId),
  rolePermissions: (userId) => rolePermissions(db, userId),
  isTenantActive: (tenantId) => isTenantActive(db, tenantId),
});
