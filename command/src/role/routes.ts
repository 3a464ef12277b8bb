import { z } from 'zod';
import { DomainError, envelope, idBody, perm, roleCreateBody, roleMenuBody, roleUpdateBody } from '@iot/contracts';
import type { RoutesPlugin } from '@iot/infra/http/app.ts';
import type { AppContext } from '@iot/infra/http/context.ts';
import { ok } from '@iot/infra/http/envelope.ts';
import { principalOf, type Principal } from '@iot/infra/http/principal.ts';
import { newAggregateId } from '../handler.ts';
import { contextOf } from '../context.ts';
import { runCommand } from '../auth/commands.ts';
import { roleDecider, roleStream } from './decide.ts';

const idResult = envelope(z.object({ id: z.string() }));

export async function roleNameTaken(db: AppContext['db'], tenantId: string, name: string, exceptRoleId?: string): Promise<boolean> {
  const found = await db.query('select 1 from rm_roles where tenant_id = $1 and lower(name) = lower($2) and id <> $3', [
    tenantId,
    name,
    exceptRoleId ?? '',
  ]);
  return found.rowCount > 0;
}

/** Menus granted must exist; a caller grants only what they hold themselves, and `platform:` entries never leave the system tenant. */
async function assertGrantable(db: AppContext['db'], principal: Principal, menuIds: string[]): Promise<void> {
  if (menuIds.length === 0) return;
  const menus = await db.query<{ id: string; permission: string | null }>('select id, permission from rm_menus where id = any($1)', [
    menuIds,
  ]);
  if (menus.rowCount !== new Set(menuIds).size) throw new DomainError('NOT_FOUND', { field: 'menuIds' });
  const beyond = menus.rows.filter(
    (m) =>
      m.permission &&
      ((m.permission.startsWith('platform:') && !principal.isSystemAdmin) ||
        (!principal.permissions.has('*') && !principal.permissions.has(m.permission))),
  );
  if (beyond.length > 0) throw new DomainError('SCOPE_EXCEEDED', { permissions: beyond.map((m) => m.permission) });
}

/** Roles of a tenant and the menus they grant (spec §3 Role, §5 'Role already exists', §6). */
export const roleRoutes: RoutesPlugin = async (app, ctx) => {
  const { db } = ctx;

  app.post(
    '/api/auth/role',
    { config: { permission: perm.roleAdd }, schema: { tags: ['role'], body: roleCreateBody, response: { 200: idResult } } },
    async (request) => {
      const principal = principalOf(request);
      const { name, remark, menuIds } = request.body;
      await assertGrantable(db, principal, menuIds);
      const roleId = newAggregateId(contextOf(request));
      await runCommand(ctx, request, roleDecider, roleStream(principal.tenantId, roleId), {
        type: 'CreateRole',
        roleId,
        name,
        remark,
        menuIds,
        builtin: null,
        nameTaken: await roleNameTaken(db, principal.tenantId, name),
      });
      return ok({ id: roleId });
    },
  );

  app.put(
    '/api/auth/role',
    { config: { permission: perm.roleEdit }, schema: { tags: ['role'], body: roleUpdateBody, response: { 200: idResult } } },
    async (request) => {
      const principal = principalOf(request);
      const { id, name, remark } = request.body;
      await runCommand(ctx, request, roleDecider, roleStream(principal.tenantId, id), {
        type: 'UpdateRole',
        roleId: id,
        name,
        remark,
        nameTaken: await roleNameTaken(db, principal.tenantId, name, id),
      });
      return ok({ id });
    },
  );

  app.put(
    '/api/auth/role/menu',
    { config: { permission: perm.roleGrant }, schema: { tags: ['role'], body: roleMenuBody, response: { 200: idResult } } },
    async (request) => {
      const principal = principalOf(request);
      const { id, menuIds } = request.body;
      await assertGrantable(db, principal, menuIds);
      await runCommand(ctx, request, roleDecider, roleStream(principal.tenantId, id), { type: 'GrantRoleMenus', roleId: id, menuIds });
      return ok({ id });
    },
  );

  app.delete(
    '/api/auth/role',
    { config: { permission: perm.roleDelete }, schema: { tags: ['role'], querystring: idBody, response: { 200: idResult } } },
    async (request) => {
      const principal = principalOf(request);
      const { id } = request.query;
      const users = await db.query('select 1 from rm_users where tenant_id = $1 and $2 = any(role_ids) limit 1', [principal.tenantId, id]);
      await runCommand(ctx, request, roleDecider, roleStream(principal.tenantId, id), {
        type: 'DeleteRole',
        roleId: id,
        inUse: users.rowCount > 0,
      });
      return ok({ id });
    },
  );
};
