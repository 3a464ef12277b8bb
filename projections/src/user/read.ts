import type { Page, PageQuery, UserProfile, UserStatus, userSortable } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { permissionsOfRoles } from '../role/read.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';
import type { Fields } from '../shared/row.ts';

/** A user as the users projection keeps it (rm_users). */
export type UserRecord = Fields<UserProfile> & {
  id: string;
  tenantId: string;
  status: UserStatus;
  isSystemAdmin: boolean;
  isTenantAdmin: boolean;
  createdAt: Date;
  createdBy: string;
  updatedAt: Date;
  passwordChangedAt: Date | null;
};

const USER = `id, tenant_id as "tenantId", username, email, phone, sex, position, group_id as "groupId", role_ids as "roleIds",
  description, home_page as "homePage", status, is_system_admin as "isSystemAdmin", is_tenant_admin as "isTenantAdmin",
  created_at as "createdAt", created_by as "createdBy", updated_at as "updatedAt", password_changed_at as "passwordChangedAt"`;

/** A user of a tenant, by id. */
export async function userById(db: Sql, tenantId: string, id: string): Promise<UserRecord | null> {
  return (await db.query<UserRecord>(`select ${USER} from rm_users where id = $1 and tenant_id = $2`, [id, tenantId])).rows[0] ?? null;
}

/** A user by id, whichever tenant holds it (a session names its subject and tenant; the caller compares them). */
export async function userByIdAnyTenant(db: Sql, id: string): Promise<UserRecord | null> {
  return (await db.query<UserRecord>(`select ${USER} from rm_users where id = $1`, [id])).rows[0] ?? null;
}

/**
 * The user a login names, platform-wide: by username or email, whatever the case; a username wins over
 * another user's email of the same spelling.
 */
export async function userByAccount(db: Sql, account: string): Promise<UserRecord | null> {
  const found = await db.query<UserRecord>(
    `select ${USER} from rm_users where lower(username) = lower($1) or lower(email) = lower($1)
     order by (lower(username) = lower($1)) desc limit 1`,
    [account],
  );
  return found.rows[0] ?? null;
}

export interface UserFilter {
  /** Only users of these groups (a station's or a chosen group's subtree). */
  groupIds?: string[];
  /** A part of the username, email or phone. */
  search?: string;
  /** A part of the username. */
  username?: string;
  status?: UserStatus;
  groupId?: string;
  roleId?: string;
  /** A part of the position. */
  position?: string;
}
/** The columns a list sorts by, for each name the route's query allows. */
const sortBy = { createdAt: 'created_at', username: 'lower(username)', status: 'status', position: 'position' } satisfies Record<
  (typeof userSortable)[number],
  string
>;

/** A page of a tenant's users, filtered; sorted as the route allows, newest first by default. */
export async function usersPage(db: Sql, tenantId: string, filter: UserFilter, page: PageQuery): Promise<Page<UserRecord>> {
  const spec: ListSpec = {
    select: USER,
    from: 'rm_users',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: sortBy,
    defaultSort: 'created_at',
  };
  const { where, params } = spec;
  if (filter.groupIds) where.push(`group_id = any(${param(params, filter.groupIds)})`);
  if (filter.search) {
    const like = param(params, `%${filter.search}%`);
    where.push(`(username ilike ${like} or email ilike ${like} or phone ilike ${like})`);
  }
  if (filter.username) where.push(`username ilike ${param(params, `%${filter.username}%`)}`);
  if (filter.status) where.push(`status = ${param(params, filter.status)}`);
  if (filter.groupId) where.push(`group_id = ${param(params, filter.groupId)}`);
  if (filter.roleId) where.push(`${param(params, filter.roleId)} = any(role_ids)`);
  if (filter.position) where.push(`position ilike ${param(params, `%${filter.position}%`)}`);
  return pageRows<UserRecord>(db, page, spec);
}

/** The positions a tenant's users hold, each once, in order. */
export async function userPositions(db: Sql, tenantId: string): Promise<string[]> {
  const rows = await db.query<{ position: string }>(
    `select distinct position from rm_users where tenant_id = $1 and position is not null and position <> '' order by position`,
    [tenantId],
  );
  return rows.rows.map((r) => r.position);
}

/** The usernames of users by id, for naming who did what in a history (an id no user has, or none of `tenantId`'s if given, is left out). */
export async function usernamesById(db: Sql, ids: string[], tenantId?: string): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ id: string; username: string }>(
    `select id, username from rm_users where id = any($1) ${tenantId === undefined ? '' : 'and tenant_id = $2'}`,
    tenantId === undefined ? [ids] : [ids, tenantId],
  );
  return new Map(rows.rows.map((r) => [r.id, r.username]));
}

/** The ids of the users of these tenants whose username holds `text` (any case). */
export async function userIdsNamedLike(db: Sql, tenantIds: string[], text: string): Promise<string[]> {
  const rows = await db.query<{ id: string }>('select id from rm_users where tenant_id = any($1) and username ilike $2', [
    tenantIds,
    `%${text}%`,
  ]);
  return rows.rows.map((r) => r.id);
}

/** The ids of a tenant's users in these groups. */
export async function userIdsInGroups(db: Sql, tenantId: string, groupIds: string[]): Promise<string[]> {
  if (groupIds.length === 0) return [];
  const rows = await db.query<{ id: string }>('select id from rm_users where tenant_id = $1 and group_id = any($2)', [tenantId, groupIds]);
  return rows.rows.map((r) => r.id);
}

/** Whether any user of the tenant is in the group. */
export async function anyUserInGroup(db: Sql, tenantId: string, groupId: string): Promise<boolean> {
  return (await db.query('select 1 from rm_users where tenant_id = $1 and group_id = $2 limit 1', [tenantId, groupId])).rowCount > 0;
}

/** Whether any user of the tenant holds the role. */
export async function anyUserWithRole(db: Sql, tenantId: string, roleId: string): Promise<boolean> {
  return (await db.query('select 1 from rm_users where tenant_id = $1 and $2 = any(role_ids) limit 1', [tenantId, roleId])).rowCount > 0;
}

/** Every user's account names and contacts, oldest first: what claims taken before claims existed are made from. */
export async function userContacts(
  db: Sql,
): Promise<Array<{ id: string; username: string; email: string | null; phone: string | null; createdAt: Date }>> {
  return (
    await db.query<{ id: string; username: string; email: string | null; phone: string | null; createdAt: Date }>(
      'select id, username, email, phone, created_at as "createdAt" from rm_users order by created_at, id',
    )
  ).rows;
}

/** Permissions a user's roles grant: the union of their menus' permissions (only roles of the user's own tenant count). */
export async function userPermissions(db: Sql, userId: string): Promise<Set<string>> {
  const user = await userByIdAnyTenant(db, userId);
  return new Set(user ? await permissionsOfRoles(db, user.tenantId, user.roleIds) : []);
}
