import { DomainError, roleTextOf, type Page, type PageQuery, type UserRoutes, type UserRow } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { groupNames, groupSubtree } from '@iot/projections/group/read.ts';
import { rolesByIds } from '@iot/projections/role/read.ts';
import { userById, userPositions, usersPage, type UserFilter, type UserRecord } from '@iot/projections/user/read.ts';

/** Users as the screens show them: their group by name, their roles by name (built-in ones nobody renamed in the caller's language). */
async function userRowsOf(ctx: RequestContext, users: UserRecord[]): Promise<UserRow[]> {
  const { db } = ctx.ports;
  const { tenantId } = callerOf(ctx);
  const [groups, roles] = await Promise.all([
    groupNames(db, tenantId, [...new Set(users.flatMap((u) => (u.groupId ? [u.groupId] : [])))]),
    rolesByIds(db, tenantId, [...new Set(users.flatMap((u) => u.roleIds))]),
  ]);
  return users.map((u) => ({
    id: u.id,
    username: u.username,
    sex: u.sex,
    email: u.email,
    phone: u.phone,
    position: u.position,
    groupId: u.groupId,
    groupName: (u.groupId && groups.get(u.groupId)) ?? null,
    roleIds: u.roleIds,
    roleNames: roles.filter((r) => u.roleIds.includes(r.id)).map((r) => roleTextOf({ ...r, remark: null }, ctx.lang).name),
    status: u.status,
    description: u.description,
    homePage: u.homePage,
    isTenantAdmin: u.isTenantAdmin,
    createdAt: u.createdAt.toISOString(),
    createdBy: u.createdBy,
  }));
}

async function userPage(ctx: RequestContext, filter: UserFilter, q: PageQuery): Promise<Page<UserRow>> {
  const page = await usersPage(ctx.ports.db, callerOf(ctx).tenantId, filter, q);
  return { ...page, rows: await userRowsOf(ctx, page.rows) };
}

async function oneUser(ctx: RequestContext, id: string): Promise<UserRow> {
  const user = await userById(ctx.ports.db, callerOf(ctx).tenantId, id);
  if (!user) throw new DomainError('NOT_FOUND');
  return (await userRowsOf(ctx, [user]))[0]!;
}

/** The groups of a subtree (of the station or a chosen group), or no narrowing without a root. */
const subtreeOf = async (ctx: RequestContext, root: string | null | undefined) =>
  root ? groupSubtree(ctx.ports.db, callerOf(ctx).tenantId, root) : undefined;

type ByGroup = Handlers<UserRoutes>['user.ofAgency'];
/** Users of a group and everything below it: the group asked for, else the current station. */
const usersOfGroup: ByGroup = async ({ query }, ctx) =>
  userPage(
    ctx,
    { groupIds: await subtreeOf(ctx, query.groupId ?? callerOf(ctx).stationId), roleId: query.roleId, username: query.username },
    query,
  );

/** Reads of the user screens: list, checks, users of a group or role, positions, own profile. */
export const userQueryHandlers: Pick<
  Handlers<UserRoutes>,
  'user.list' | 'user.detail' | 'user.check' | 'user.ofAgency' | 'user.byGroupRole' | 'user.positions' | 'user.profile'
> = {
  async 'user.list'({ query: q }, ctx) {
    // The header's group (spec §6 stationId) narrows the list to the users of its subtree.
    const groupIds = await subtreeOf(ctx, callerOf(ctx).stationId);
    return userPage(ctx, { groupIds, search: q.username, status: q.status, groupId: q.groupId, roleId: q.roleId, position: q.position }, q);
  },

  'user.detail': ({ query }, ctx) => oneUser(ctx, query.id),

  async 'user.check'({ query }, ctx) {
    const { username, id } = query;
    // The user being edited must be the caller's tenant's own.
    if (id && !(await userById(ctx.ports.db, callerOf(ctx).tenantId, id))) throw new DomainError('NOT_FOUND');
    const taken = await ctx.ports.db.query('select 1 from username_claims where username = lower($1) and owner <> $2', [
      username,
      id ?? '',
    ]);
    return { available: taken.rowCount === 0 };
  },

  'user.ofAgency': usersOfGroup,
  'user.byGroupRole': (input, ctx) => usersOfGroup(input, ctx),

  'user.positions': (_input, ctx) => userPositions(ctx.ports.db, callerOf(ctx).tenantId),

  'user.profile': (_input, ctx) => oneUser(ctx, callerOf(ctx).id),
};
