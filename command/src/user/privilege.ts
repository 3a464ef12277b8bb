import { DomainError } from '@iot/contracts';
import { hasPermission } from '@iot/contracts/http/principal.ts';
import { callerOf, type RequestContext } from '@iot/contracts/http/handler.ts';

/** A caller gives roles only within what they hold themselves (spec §6, ARCHITECTURE.md "API"). */
export async function assertMayGrantRoles(ctx: RequestContext, roleIds: string[]): Promise<void> {
  const caller = callerOf(ctx);
  if (caller.permissions.has('*')) return;
  const granted = await ctx.ports.lookups.permissionsOfRoles(caller.tenantId, roleIds);
  const beyond = granted.filter((p) => !hasPermission(caller, p));
  if (beyond.length > 0) throw new DomainError('SCOPE_EXCEEDED', { permissions: beyond });
}

/** A caller edits, stops, deletes or resets only users who hold no more than they do; administrators only an administrator. */
export async function assertMayActOn(ctx: RequestContext, userId: string): Promise<void> {
  const caller = callerOf(ctx);
  if (caller.id === userId && caller.kind === 'user') return;
  const target = await ctx.ports.lookups.userById(userId);
  if (!target || target.tenantId !== caller.tenantId) throw new DomainError('NOT_FOUND');
  if (caller.permissions.has('*')) return;
  if (target.isTenantAdmin || target.isSystemAdmin) throw new DomainError('SCOPE_EXCEEDED', { permissions: ['*'] });
  await assertMayGrantRoles(ctx, target.roleIds);
}
