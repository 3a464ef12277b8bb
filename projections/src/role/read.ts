import type { Page, PageQuery, roleSortable } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { permissionsOfMenus } from '../menu/read.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';

/** A role of a tenant and the menus it grants, as the roles projection keeps it (rm_roles). */
export type RoleRecord = {
  id: string;
  tenantId: string;
  name: string;
  remark: string | null;
  menuIds: string[];
  /** Which built-in role it is (`BuiltinRole`), null for a tenant's own. */
  builtin: string | null;
  createdAt: Date;
  createdBy: string;
  updatedAt: Date;
};

const ROLE = `id, tenant_id as "tenantId", name, remark, menu_ids as "menuIds", builtin, created_at as "createdAt",
  created_by as "createdBy", updated_at as "updatedAt"`;

/** A role of a tenant, by id. */
export async function roleById(db: Sql, tenantId: string, id: string): Promise<RoleRecord | null> {
  return (await db.query<RoleRecord>(`select ${ROLE} from rm_roles where id = $1 and tenant_id = $2`, [id, tenantId])).rows[0] ?? null;
}

/** Those of `ids` that are roles of the tenant (an id of another tenant's role is left out), by name. */
export async function rolesByIds(db: Sql, tenantId: string, ids: string[]): Promise<RoleRecord[]> {
  if (ids.length === 0) return [];
  return (await db.query<RoleRecord>(`select ${ROLE} from rm_roles where id = any($1) and tenant_id = $2 order by name`, [ids, tenantId]))
    .rows;
}

/** The columns a list sorts by, for each name the route's query allows. */
const sortBy = { createdAt: 'created_at', name: 'lower(name)' } satisfies Record<(typeof roleSortable)[number], string>;

/** A page of a tenant's roles, `name` a part of theirs; sorted as the route allows. */
export async function rolesPage(db: Sql, tenantId: string, filter: { name?: string }, page: PageQuery): Promise<Page<RoleRecord>> {
  const spec: ListSpec = {
    select: ROLE,
    from: 'rm_roles',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: sortBy,
    defaultSort: 'created_at',
  };
  if (filter.name) spec.where.push(`name ilike ${param(spec.params, `%${filter.name}%`)}`);
  return pageRows<RoleRecord>(db, page, spec);
}

/** The menus the tenant's roles among `roleIds` grant, each once. */
export async function menuIdsOfRoles(db: Sql, tenantId: string, roleIds: string[]): Promise<string[]> {
  if (roleIds.length === 0) return [];
  const rows = await db.query<{ menuId: string }>(
    'select distinct unnest(menu_ids) as "menuId" from rm_roles where tenant_id = $1 and id = any($2)',
    [tenantId, roleIds],
  );
  return rows.rows.map((r) => r.menuId);
}

/** Whether another role of the tenant has the name, whatever its case. */
export async function roleNameTaken(db: Sql, tenantId: string, name: string, exceptRoleId: string): Promise<boolean> {
  const found = await db.query('select 1 from rm_roles where tenant_id = $1 and lower(name) = lower($2) and id <> $3 limit 1', [
    tenantId,
    name,
    exceptRoleId,
  ]);
  return found.rowCount > 0;
}

/** Every role's name, by tenant: what role-name claims taken before claims existed are made from. */
export async function roleNames(db: Sql): Promise<Array<{ id: string; tenantId: string; name: string }>> {
  return (await db.query<{ id: string; tenantId: string; name: string }>('select id, tenant_id as "tenantId", name from rm_roles')).rows;
}

/** The permissions the tenant's roles among `roleIds` grant: the union of their menus' permissions. */
export async function permissionsOfRoles(db: Sql, tenantId: string, roleIds: string[]): Promise<string[]> {
  return permissionsOfMenus(db, await menuIdsOfRoles(db, tenantId, roleIds));
}
