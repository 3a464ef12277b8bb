import { z } from 'zod';
import {
  availability,
  DomainError,
  entityId,
  envelope,
  page,
  pageQuery,
  perm,
  userListQuery,
  userRow,
  usernameCheckQuery,
  type UserRow,
} from '@iot/contracts';
import type { RoutesPlugin } from '../server/app.ts';
import { ok } from '../server/envelope.ts';
import { principalOf } from '../server/principal.ts';
import { assertOwnRow, groupSubtree } from './access.ts';
import { iso, pageOf, param, type ListSpec } from './paging.ts';

const SELECT = `u.*, g.name as group_name,
  coalesce((select array_agg(r.name order by r.name) from rm_roles r where r.id = any(u.role_ids) and r.tenant_id = u.tenant_id), '{}') as role_names`;
const FROM = 'rm_users u left join rm_groups g on g.id = u.group_id and g.tenant_id = u.tenant_id';
const sortable = { createdAt: 'u.created_at', username: 'lower(u.username)', status: 'u.status', position: 'u.position' };

export const toUserRow = (r: Record<string, unknown>): UserRow => ({
  id: r.id as string,
  username: r.username as string,
  sex: r.sex as UserRow['sex'],
  email: (r.email as string | null) ?? null,
  phone: (r.phone as string | null) ?? null,
  position: (r.position as string | null) ?? null,
  groupId: (r.group_id as string | null) ?? null,
  groupName: (r.group_name as string | null) ?? null,
  roleIds: (r.role_ids as string[]) ?? [],
  roleNames: (r.role_names as string[]) ?? [],
  status: r.status as UserRow['status'],
  description: (r.description as string | null) ?? null,
  homePage: (r.home_page as string | null) ?? null,
  isTenantAdmin: r.is_tenant_admin === true,
  createdAt: iso(r.created_at),
  createdBy: r.created_by as string,
});

const byGroupQuery = pageQuery
  .extend({ groupId: entityId.optional(), roleId: entityId.optional(), username: z.string().trim().max(64).optional() })
  .strict();

/** Reads of the user screens: list, checks, users of a group or role, positions, own profile. */
export const userQueryRoutes: RoutesPlugin = async (app, { db }) => {
  const listSpec = (tenantId: string): ListSpec => ({
    select: SELECT,
    from: FROM,
    where: [`u.tenant_id = $1`],
    params: [tenantId],
    sortable,
    defaultSort: 'u.created_at',
  });

  app.get(
    '/api/auth/user',
    {
      config: { permission: perm.userList },
      schema: { tags: ['user'], querystring: pageQuery.extend(userListQuery.shape), response: { 200: envelope(page(userRow)) } },
    },
    async (request) => {
      const q = request.query;
      const spec = listSpec(principalOf(request).tenantId);
      if (q.username)
        spec.where.push(
          `(u.username ilike ${param(spec.params, `%${q.username}%`)} or u.email ilike $${spec.params.length} or u.phone ilike $${spec.params.length})`,
        );
      if (q.status) spec.where.push(`u.status = ${param(spec.params, q.status)}`);
      if (q.groupId) spec.where.push(`u.group_id = ${param(spec.params, q.groupId)}`);
      if (q.roleId) spec.where.push(`${param(spec.params, q.roleId)} = any(u.role_ids)`);
      if (q.position) spec.where.push(`u.position ilike ${param(spec.params, `%${q.position}%`)}`);
      return ok(await pageOf(db, q, spec, toUserRow));
    },
  );

  app.get(
    '/api/auth/user/detail',
    {
      config: { permission: perm.userList },
      schema: { tags: ['user'], querystring: z.object({ id: entityId }).strict(), response: { 200: envelope(userRow) } },
    },
    async (request) => {
      const row = (
        await db.query(`select ${SELECT} from ${FROM} where u.id = $1 and u.tenant_id = $2`, [
          request.query.id,
          principalOf(request).tenantId,
        ])
      ).rows[0];
      if (!row) throw new DomainError('NOT_FOUND');
      return ok(toUserRow(row));
    },
  );

  app.get(
    '/api/auth/user/check',
    {
      config: { permission: perm.userList },
      schema: { tags: ['user'], querystring: usernameCheckQuery, response: { 200: envelope(availability) } },
    },
    async (request) => {
      const { username, id } = request.query;
      // The user being edited must be the caller's tenant's own.
      if (id) await assertOwnRow(db, 'rm_users', id, principalOf(request).tenantId);
      const taken = await db.query('select 1 from username_claims where username = lower($1) and owner <> $2', [username, id ?? '']);
      return ok({ available: taken.rowCount === 0 });
    },
  );

  /** Users of a group and everything below it: the group asked for, else the current station. */
  for (const path of ['/api/auth/user/getUserOfAgency', '/api/auth/user/userListByDeptRole']) {
    app.get(
      path,
      {
        config: { permission: perm.userList },
        schema: { tags: ['user'], querystring: byGroupQuery, response: { 200: envelope(page(userRow)) } },
      },
      async (request) => {
        const principal = principalOf(request);
        const q = request.query;
        const spec = listSpec(principal.tenantId);
        const groupId = q.groupId ?? principal.stationId;
        if (groupId) spec.where.push(`u.group_id = any(${param(spec.params, await groupSubtree(db, principal.tenantId, groupId))})`);
        if (q.roleId) spec.where.push(`${param(spec.params, q.roleId)} = any(u.role_ids)`);
        if (q.username) spec.where.push(`u.username ilike ${param(spec.params, `%${q.username}%`)}`);
        return ok(await pageOf(db, q, spec, toUserRow));
      },
    );
  }

  app.get(
    '/api/auth/user/queryPosition',
    { config: { permission: perm.userList }, schema: { tags: ['user'], response: { 200: envelope(z.array(z.string())) } } },
    async (request) => {
      const rows = await db.query<{ position: string }>(
        `select distinct position from rm_users where tenant_id = $1 and position is not null and position <> '' order by position`,
        [principalOf(request).tenantId],
      );
      return ok(rows.rows.map((r) => r.position));
    },
  );

  app.get(
    '/api/auth/user/profile',
    { config: { permission: 'authenticated' }, schema: { tags: ['user'], response: { 200: envelope(userRow) } } },
    async (request) => {
      const principal = principalOf(request);
      const row = (await db.query(`select ${SELECT} from ${FROM} where u.id = $1 and u.tenant_id = $2`, [principal.id, principal.tenantId]))
        .rows[0];
      if (!row) throw new DomainError('NOT_FOUND');
      return ok(toUserRow(row));
    },
  );
};
