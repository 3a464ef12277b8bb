import { DomainError, roleTextOf, type Lang, type UserRoutes, type UserRow } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { iso, pageOf, param, type ListSpec } from '../shared/paging.ts';

const SELECT = `u.*, g.name as group_name,
  coalesce((select json_agg(json_build_object('name', r.name, 'builtin', r.builtin) order by r.name) from rm_roles r
    where r.id = any(u.role_ids) and r.tenant_id = u.tenant_id), '[]') as roles`;
const FROM = 'rm_users u left join rm_groups g on g.id = u.group_id and g.tenant_id = u.tenant_id';
const sortable = { createdAt: 'u.created_at', username: 'lower(u.username)', status: 'u.status', position: 'u.position' };

export const toUserRow = (r: Record<string, unknown>, lang: Lang): UserRow => ({
  id: r.id as string,
  username: r.username as string,
  sex: r.sex as UserRow['sex'],
  email: (r.email as string | null) ?? null,
  phone: (r.phone as string | null) ?? null,
  position: (r.position as string | null) ?? null,
  groupId: (r.group_id as string | null) ?? null,
  groupName: (r.group_name as string | null) ?? null,
  roleIds: (r.role_ids as string[]) ?? [],
  // Built-in roles nobody renamed are named in the caller's language.
  roleNames: ((r.roles as { name: string; builtin: string | null }[]) ?? []).map(
    (role) => roleTextOf({ ...role, remark: null }, lang).name,
  ),
  status: r.status as UserRow['status'],
  description: (r.description as string | null) ?? null,
  homePage: (r.home_page as string | null) ?? null,
  isTenantAdmin: r.is_tenant_admin === true,
  createdAt: iso(r.created_at),
  createdBy: r.created_by as string,
});

const listSpec = (tenantId: string): ListSpec => ({
  select: SELECT,
  from: FROM,
  where: [`u.tenant_id = $1`],
  params: [tenantId],
  sortable,
  defaultSort: 'u.created_at',
});

type ByGroup = Handlers<UserRoutes>['user.ofAgency'];
/** Users of a group and everything below it: the group asked for, else the current station. */
const usersOfGroup: ByGroup = async ({ query }, ctx) => {
  const caller = callerOf(ctx);
  const spec = listSpec(caller.tenantId);
  const groupId = query.groupId ?? caller.stationId;
  if (groupId) spec.where.push(`u.group_id = any(${param(spec.params, await ctx.ports.lookups.groupSubtree(caller.tenantId, groupId))})`);
  if (query.roleId) spec.where.push(`${param(spec.params, query.roleId)} = any(u.role_ids)`);
  if (query.username) spec.where.push(`u.username ilike ${param(spec.params, `%${query.username}%`)}`);
  return pageOf(ctx.ports.db, query, spec, (r) => toUserRow(r, ctx.lang));
};

async function oneUser(db: Sql, id: string, tenantId: string, lang: Lang): Promise<UserRow> {
  const row = (await db.query(`select ${SELECT} from ${FROM} where u.id = $1 and u.tenant_id = $2`, [id, tenantId])).rows[0];
  if (!row) throw new DomainError('NOT_FOUND');
  return toUserRow(row, lang);
}

/** Reads of the user screens: list, checks, users of a group or role, positions, own profile. */
export const userQueryHandlers: Pick<
  Handlers<UserRoutes>,
  'user.list' | 'user.detail' | 'user.check' | 'user.ofAgency' | 'user.byGroupRole' | 'user.positions' | 'user.profile'
> = {
  async 'user.list'({ query: q }, ctx) {
    const caller = callerOf(ctx);
    const spec = listSpec(caller.tenantId);
    // The header's group (spec §6 stationId) narrows the list to the users of its subtree.
    if (caller.stationId)
      spec.where.push(`u.group_id = any(${param(spec.params, await ctx.ports.lookups.groupSubtree(caller.tenantId, caller.stationId))})`);
    if (q.username)
      spec.where.push(
        `(u.username ilike ${param(spec.params, `%${q.username}%`)} or u.email ilike $${spec.params.length} or u.phone ilike $${spec.params.length})`,
      );
    if (q.status) spec.where.push(`u.status = ${param(spec.params, q.status)}`);
    if (q.groupId) spec.where.push(`u.group_id = ${param(spec.params, q.groupId)}`);
    if (q.roleId) spec.where.push(`${param(spec.params, q.roleId)} = any(u.role_ids)`);
    if (q.position) spec.where.push(`u.position ilike ${param(spec.params, `%${q.position}%`)}`);
    return pageOf(ctx.ports.db, q, spec, (r) => toUserRow(r, ctx.lang));
  },

  'user.detail': ({ query }, ctx) => oneUser(ctx.ports.db, query.id, callerOf(ctx).tenantId, ctx.lang),

  async 'user.check'({ query }, ctx) {
    const { username, id } = query;
    // The user being edited must be the caller's tenant's own.
    if (id) await ctx.ports.lookups.assertOwnRow('rm_users', id, callerOf(ctx).tenantId);
    const taken = await ctx.ports.db.query('select 1 from username_claims where username = lower($1) and owner <> $2', [
      username,
      id ?? '',
    ]);
    return { available: taken.rowCount === 0 };
  },

  'user.ofAgency': usersOfGroup,
  'user.byGroupRole': (input, ctx) => usersOfGroup(input, ctx),

  async 'user.positions'(_input, ctx) {
    const rows = await ctx.ports.db.query<{ position: string }>(
      `select distinct position from rm_users where tenant_id = $1 and position is not null and position <> '' order by position`,
      [callerOf(ctx).tenantId],
    );
    return rows.rows.map((r) => r.position);
  },

  'user.profile': (_input, ctx) => oneUser(ctx.ports.db, callerOf(ctx).id, callerOf(ctx).tenantId, ctx.lang),
};
