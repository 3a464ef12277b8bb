import { DomainError, roleNameScope, type RoleRoutes } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { hasPermission } from '@iot/contracts/http/principal.ts';
import { newAggregateId } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { moveClaim, releaseClaims, withClaim } from '../shared/claims.ts';
import { roleDecider, roleStream } from './decide.ts';
import { roleNameClaim } from './names.ts';

/** Menus granted must exist; a caller grants only what they hold themselves, and `platform:` entries never leave the system tenant. */
async function assertGrantable(ctx: RequestContext, menuIds: string[]): Promise<void> {
  if (menuIds.length === 0) return;
  const caller = callerOf(ctx);
  const menus = await ctx.ports.lookups.menusByIds(menuIds);
  if (menus.length !== new Set(menuIds).size) throw new DomainError('NOT_FOUND', { field: 'menuIds' });
  const beyond = menus.filter((m) => m.permission && !hasPermission(caller, m.permission));
  if (beyond.length > 0) throw new DomainError('SCOPE_EXCEEDED', { permissions: beyond.map((m) => m.permission) });
}

/** Roles of a tenant and the menus they grant (spec §3 Role, §5 'Role already exists', §6). */
export const roleHandlers: Pick<Handlers<RoleRoutes>, 'role.create' | 'role.update' | 'role.grant' | 'role.delete'> = {
  async 'role.create'({ body }, ctx) {
    const { db } = ctx.ports;
    const { tenantId } = callerOf(ctx);
    const { name, remark, menuIds } = body;
    await assertGrantable(ctx, menuIds);
    const roleId = newAggregateId(commandContextOf(ctx));
    await withClaim(db, roleNameClaim(tenantId, name, roleId), 'ROLE_EXISTS', async () =>
      runCommand(ctx, roleDecider, roleStream(tenantId, roleId), {
        type: 'CreateRole',
        roleId,
        name,
        remark,
        menuIds,
        builtin: null,
        nameTaken: await ctx.ports.lookups.roleNameTaken(tenantId, name, roleId),
      }),
    );
    return { id: roleId };
  },

  async 'role.update'({ body }, ctx) {
    const { db } = ctx.ports;
    const { tenantId } = callerOf(ctx);
    const { id, name, remark } = body;
    await moveClaim(db, roleNameClaim(tenantId, name, id), 'ROLE_EXISTS', async () =>
      runCommand(ctx, roleDecider, roleStream(tenantId, id), {
        type: 'UpdateRole',
        roleId: id,
        name,
        remark,
        nameTaken: await ctx.ports.lookups.roleNameTaken(tenantId, name, id),
      }),
    );
    return { id };
  },

  async 'role.grant'({ body }, ctx) {
    const { id, menuIds } = body;
    await assertGrantable(ctx, menuIds);
    await runCommand(ctx, roleDecider, roleStream(callerOf(ctx).tenantId, id), { type: 'GrantRoleMenus', roleId: id, menuIds });
    return { id };
  },

  async 'role.delete'({ query }, ctx) {
    const { db } = ctx.ports;
    const { tenantId } = callerOf(ctx);
    const { id } = query;
    const inUse = await ctx.ports.lookups.roleInUse(tenantId, id);
    await runCommand(ctx, roleDecider, roleStream(tenantId, id), { type: 'DeleteRole', roleId: id, inUse });
    await releaseClaims(db, roleNameScope(tenantId), id);
    return { id };
  },
};
