import { DomainError } from '@iot/contracts';
import { hasPermission } from '@iot/contracts/http/principal.ts';
import { callerOf, type RequestContext } from '@iot/contracts/http/handler.ts';

/** What the holder of these grants may do: '*' for an administrator, else the permissions of their roles' menus. */
async function permissionsOfRoles(ctx: RequestContext, tenantId: string, roleIds: string[]): Promise<string[]> {
  const rows = await ctx.ports.db.query<{ permission: string }>(
    `select distinct m.permission from rm_roles r join rm_menus m on m.id = any(r.menu_ids)
     where r.tenant_id = $1 and r.id = any($2) and m.permission is not null`,
    [tenantId, roleIds],
  );
  return rows.rows.map((r) => r.permission);
}

/** A caller gives roles only within what they hold themselves (spec §6, ARCHITECTURE.md "API"). */
export async function assertMayGrantRoles(ctx: RequestContext, roleIds: string[]): Promise<void> {
  const caller = callerOf(ctx);
  if (caller.permissions.has('*')) return;
  const beyond = (await permissionsOfRoles(ctx, caller.tenantId, roleIds)).filter((p) => !hasPermission(caller, p));
  if (beyond.length > 0) throw new DomainError('SCOPE_EXCEEDED', { permissions: beyond });
}

/** A caller edits, stops, deletes or resets only users who hold no more than they do; administrators only an administrator. */
export async function assertMayActOn(ctx: RequestContext, userId: string): Promise<void> {
  const caller = callerOf(ctx);
  if (caller.id === userId && caller.kind === 'user') return;
  const target = (
    await ctx.ports.db.query<{ role_ids: string[]; admin: boolean }>(
      'select role_ids, (is_tenant_admin or is_system_admin) as admin from rm_users where id = $1 and tenant_id = $2',
      [userId, caller.tenantId],
    )
  ).rows[0];
  if (!target) throw new DomainError('NOT_FOUND');
  if (caller.permissions.has('*')) return;
  if (target.admin) throw new DomainError('SCOPE_EXCEEDED', { permissions: ['*'] });
  const beyond = (await permissionsOfRoles(ctx, caller.tenantId, target.role_ids)).filter((p) => !hasPermission(caller, p));
  if (beyond.length > 0) throw new DomainError('SCOPE_EXCEEDED', { permissions: beyond });
}
