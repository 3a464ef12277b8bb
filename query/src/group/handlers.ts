import { groupTypes, type GroupNode, type GroupRoutes, type GroupRow } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { iso, pageOf, param, treeOf, type ListSpec } from '../shared/paging.ts';

const toGroupRow = (r: Record<string, unknown>): GroupRow => ({
  id: r.id as string,
  name: r.name as string,
  type: r.type as GroupRow['type'],
  location: (r.location as string | null) ?? null,
  sort: r.sort as number,
  parentId: (r.parent_id as string | null) ?? null,
  createdAt: iso(r.created_at),
});

/** Reads of the group screen: the tree (narrowed to the current station), a flat paged list, the group types. */
export const groupQueryHandlers: Pick<Handlers<GroupRoutes>, 'group.tree' | 'group.list' | 'group.types'> = {
  async 'group.tree'({ query: q }, ctx) {
    const caller = callerOf(ctx);
    const params: unknown[] = [caller.tenantId];
    const where = ['tenant_id = $1'];
    const root = q.parentId ?? caller.stationId;
    if (root) where.push(`id = any(${param(params, await ctx.ports.lookups.groupSubtree(caller.tenantId, root))})`);
    if (q.name) where.push(`name ilike ${param(params, `%${q.name}%`)}`);
    if (q.type) where.push(`type = ${param(params, q.type)}`);
    const rows = await ctx.ports.db.query(`select * from rm_groups where ${where.join(' and ')} order by sort, name`, params);
    return treeOf(rows.rows.map(toGroupRow)) as GroupNode[];
  },

  async 'group.list'({ query: q }, ctx) {
    const caller = callerOf(ctx);
    const spec: ListSpec = {
      select: '*',
      from: 'rm_groups',
      where: ['tenant_id = $1'],
      params: [caller.tenantId],
      sortable: { sort: 'sort', name: 'name', createdAt: 'created_at' },
      defaultSort: 'sort',
    };
    if (q.parentId) spec.where.push(`parent_id = ${param(spec.params, q.parentId)}`);
    if (q.name) spec.where.push(`name ilike ${param(spec.params, `%${q.name}%`)}`);
    if (q.type) spec.where.push(`type = ${param(spec.params, q.type)}`);
    if (caller.stationId)
      spec.where.push(`id = any(${param(spec.params, await ctx.ports.lookups.groupSubtree(caller.tenantId, caller.stationId))})`);
    return pageOf(ctx.ports.db, q, spec, toGroupRow);
  },

  'group.types': async () => groupTypes.map((value) => ({ value })),
};
