import { groupTypes, type GroupRoutes, type GroupRow } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { groupsOf, groupsPage, groupSubtree, type GroupRecord } from '@iot/projections/group/read.ts';
import { treeOf } from '../shared/paging.ts';

const toGroupRow = (g: GroupRecord): GroupRow => ({
  id: g.id,
  name: g.name,
  type: g.type,
  location: g.location,
  sort: g.sort,
  parentId: g.parentId,
  createdAt: g.createdAt.toISOString(),
});

/** Reads of the group screen: the tree (narrowed to the current station), a flat paged list, the group types. */
export const groupQueryHandlers: Pick<Handlers<GroupRoutes>, 'group.tree' | 'group.list' | 'group.types'> = {
  async 'group.tree'({ query: q }, ctx) {
    const { db } = ctx.ports;
    const caller = callerOf(ctx);
    const root = q.parentId ?? caller.stationId;
    const ids = root ? await groupSubtree(db, caller.tenantId, root) : undefined;
    const groups = await groupsOf(db, caller.tenantId, { ids, name: q.name, type: q.type });
    return treeOf(groups.map(toGroupRow));
  },

  async 'group.list'({ query: q }, ctx) {
    const { db } = ctx.ports;
    const caller = callerOf(ctx);
    const ids = caller.stationId ? await groupSubtree(db, caller.tenantId, caller.stationId) : undefined;
    const page = await groupsPage(db, caller.tenantId, { ids, parentId: q.parentId, name: q.name, type: q.type }, q);
    return { ...page, rows: page.rows.map(toGroupRow) };
  },

  'group.types': async () => groupTypes.map((value) => ({ value })),
};
