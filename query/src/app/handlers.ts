import type { AppRoutes, AppRow, appSortable } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { isRootUser } from '@iot/contracts/http/principal.ts';
import { iso, pageOf, param, type ListSpec } from '../shared/paging.ts';

const toAppRow = (r: Record<string, unknown>): AppRow => ({
  id: r.id as string,
  type: r.type as AppRow['type'],
  name: r.name as string,
  appKey: r.app_key as string,
  ownerId: r.owner_id as string,
  ownerName: (r.owner_name as string | null) ?? null,
  scope: (r.scope as string[]) ?? [],
  sharing: r.sharing as AppRow['sharing'],
  status: r.status as AppRow['status'],
  remark: (r.remark as string | null) ?? null,
  createdAt: iso(r.created_at),
});

/**
 * The apps a user sees (spec §6): their own; those shared with the organisation when the viewer's group
 * is in the owner's group subtree; those shared globally within the tenant; all of them for the tenant's root user.
 */
export const appQueryHandlers: Pick<Handlers<AppRoutes>, 'app.list'> = {
  async 'app.list'({ query: q }, ctx) {
    const { db, lookups } = ctx.ports;
    const caller = callerOf(ctx);
    const spec: ListSpec = {
      select: 'a.*, u.username as owner_name',
      from: 'rm_apps a left join rm_users u on u.id = a.owner_id',
      where: ['a.tenant_id = $1'],
      params: [caller.tenantId],
      sortable: { createdAt: 'a.created_at', name: 'lower(a.name)' } satisfies Record<(typeof appSortable)[number], string>,
      defaultSort: 'a.created_at',
    };
    if (!isRootUser(caller)) {
      const me = (await db.query<{ group_id: string | null }>('select group_id from rm_users where id = $1', [caller.id])).rows[0];
      // The organisation of an app is its owner's group subtree: the viewer sees it when their group is in it.
      const organisation = me?.group_id ? await lookups.groupAncestry(caller.tenantId, me.group_id) : [];
      spec.where.push(
        `(a.owner_id = ${param(spec.params, caller.id)} or a.sharing = 'global' or (a.sharing = 'organisation' and u.group_id = any(${param(spec.params, organisation)})))`,
      );
    }
    if (q.name) spec.where.push(`a.name ilike ${param(spec.params, `%${q.name}%`)}`);
    if (q.type) spec.where.push(`a.type = ${param(spec.params, q.type)}`);
    return pageOf(db, q, spec, toAppRow);
  },
};
