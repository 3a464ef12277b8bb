import { DomainError, roleNameKey, roleNameScope, roleTextOf, type Lang, type RoleRoutes, type RoleRow } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { roleById, roleNameTaken, rolesPage, type RoleRecord } from '@iot/projections/role/read.ts';

/** A role in the caller's language: built-in roles nobody renamed are named in it. */
const toRoleRow = (r: RoleRecord, lang: Lang): RoleRow => ({
  id: r.id,
  ...roleTextOf(r, lang),
  menuIds: r.menuIds,
  builtin: r.builtin,
  createdAt: r.createdAt.toISOString(),
  createdBy: r.createdBy,
});

/** Reads of the role screen. */
export const roleQueryHandlers: Pick<Handlers<RoleRoutes>, 'role.list' | 'role.menus' | 'role.check'> = {
  async 'role.list'({ query: q }, ctx) {
    const page = await rolesPage(ctx.ports.db, callerOf(ctx).tenantId, { name: q.name }, q);
    return { ...page, rows: page.rows.map((r) => toRoleRow(r, ctx.lang)) };
  },

  async 'role.menus'({ query }, ctx) {
    const role = await roleById(ctx.ports.db, callerOf(ctx).tenantId, query.id);
    if (!role) throw new DomainError('NOT_FOUND');
    return { id: query.id, menuIds: role.menuIds };
  },

  async 'role.check'({ query }, ctx) {
    const { db } = ctx.ports;
    const { name, id } = query;
    const { tenantId } = callerOf(ctx);
    // The role being renamed must be the caller's tenant's own.
    if (id && !(await roleById(db, tenantId, id))) throw new DomainError('NOT_FOUND');
    // Taken by a claim (command/src/role/names.ts) or by a role no claim covers yet.
    const claimed = await db.query('select 1 from claims where scope = $1 and key = $2 and owner <> $3', [
      roleNameScope(tenantId),
      roleNameKey(name),
      id ?? '',
    ]);
    return { available: claimed.rowCount === 0 && !(await roleNameTaken(db, tenantId, name, id ?? '')) };
  },
};
