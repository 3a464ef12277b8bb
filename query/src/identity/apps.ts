import { appListQuery, appRow, envelope, page, pageQuery, perm, type AppRow } from '@iot/contracts';
import type { RoutesPlugin } from '@iot/infra/http/app.ts';
import { ok } from '@iot/infra/http/envelope.ts';
import { principalOf } from '@iot/infra/http/principal.ts';
import { groupAncestry } from '../shared/lookups.ts';
import { iso, pageOf, param } from '../shared/paging.ts';

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
export const appQueryRoutes: RoutesPlugin = async (app, { db }) => {
  app.get(
    '/api/auth/app',
    {
      config: { permission: perm.appList },
      schema: { tags: ['app'], querystring: pageQuery.extend(appListQuery.shape), response: { 200: envelope(page(appRow)) } },
    },
    async (request) => {
      const principal = principalOf(request);
      const q = request.query;
      const spec = {
        select: 'a.*, u.username as owner_name',
        from: 'rm_apps a left join rm_users u on u.id = a.owner_id',
        where: ['a.tenant_id = $1'],
        params: [principal.tenantId] as unknown[],
        sortable: { createdAt: 'a.created_at', name: 'lower(a.name)' },
        defaultSort: 'a.created_at',
      };
      if (!principal.permissions.has('*')) {
        const me = (await db.query<{ group_id: string | null }>('select group_id from rm_users where id = $1', [principal.id])).rows[0];
        // The organisation of an app is its owner's group subtree: the viewer sees it when their group is in it.
        const organisation = me?.group_id ? await groupAncestry(db, principal.tenantId, me.group_id) : [];
        spec.where.push(
          `(a.owner_id = ${param(spec.params, principal.id)} or a.sharing = 'global' or (a.sharing = 'organisation' and u.group_id = any(${param(spec.params, organisation)})))`,
        );
      }
      if (q.name) spec.where.push(`a.name ilike ${param(spec.params, `%${q.name}%`)}`);
      if (q.type) spec.where.push(`a.type = ${param(spec.params, q.type)}`);
      return ok(await pageOf(db, q, spec, toAppRow));
    },
  );
};
