import { DomainError, roleNameKey, roleNameScope, roleTextOf, type Lang, type RoleRoutes, type RoleRow } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { iso, pageOf, param, type ListSpec } from '../shared/paging.ts';

/** A role in the caller's language: built-in roles nobody renamed are named in it. */
const toRoleRow = (r: Record<string, unknown>, lang: Lang): RoleRow => {
  const builtin = (r.builtin as string | null) ?? null;
  return {
    id: r.id as string,
    ...roleTextOf({ builtin, name: r.name as string, remark: (r.remark as string | null) ?? null }, lang),
    menuIds: (r.menu_ids as string[]) ?? [],
    builtin,
    createdAt: iso(r.created_at),
    createdBy: r.created_by as string,
  };
};

/** Reads of the role screen. */
export const roleQueryHandlers: Pick<Handlers<RoleRoutes>, 'role.list' | 'role.menus' | 'role.check'> = {
  async 'role.list'({ query: q }, ctx) {
    const spec: ListSpec = {
      select: '*',
      from: 'rm_roles',
      where: ['tenant_id = $1'],
      params: [callerOf(ctx).tenantId],
      sortable: { createdAt: 'created_at', name: 'lower(name)' },
      defaultSort: 'created_at',
    };
    if (q.name) spec.where.push(`name ilike ${param(spec.params, `%${q.name}%`)}`);
    return pageOf(ctx.ports.db, q, spec, (r) => toRoleRow(r, ctx.lang));
  },

  async 'role.menus'({ query }, ctx) {
    const row = (
      await ctx.ports.db.query<{ menu_ids: string[] }>('select menu_ids from rm_roles where id = $1 and tenant_id = $2', [
        query.id,
        callerOf(ctx).tenantId,
      ])
    ).rows[0];
    if (!row) throw new DomainError('NOT_FOUND');
    return { id: query.id, menuIds: row.menu_ids };
  },

  async 'role.check'({ query }, ctx) {
    const { name, id } = query;
    const { tenantId } = callerOf(ctx);
    // The role being renamed must be the caller's tenant's own.
    if (id) await ctx.ports.lookups.assertOwnRow('rm_roles', id, tenantId);
    // Taken by a claim (command/src/role/names.ts) or by a role no claim covers yet.
    const taken = await ctx.ports.db.query(
      `select 1 from claims where scope = $1 and key = $2 and owner <> $3
       union all select 1 from rm_roles where tenant_id = $4 and lower(name) = lower($2) and id <> $3 limit 1`,
      [roleNameScope(tenantId), roleNameKey(name), id ?? '', tenantId],
    );
    return { available: taken.rowCount === 0 };
  },
};
