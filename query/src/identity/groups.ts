import { z } from 'zod';
import { envelope, groupListQuery, groupNode, groupRow, groupTypes, page, pageQuery, perm, type GroupRow } from '@iot/contracts';
import type { RoutesPlugin } from '@iot/infra/http/app.ts';
import { ok } from '@iot/infra/http/envelope.ts';
import { principalOf } from '@iot/infra/http/principal.ts';
import { groupSubtree } from '../shared/lookups.ts';
import { iso, pageOf, param, treeOf } from '../shared/paging.ts';

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
export const groupQueryRoutes: RoutesPlugin = async (app, { db }) => {
  app.get(
    '/api/auth/dept',
    {
      config: { permission: perm.groupList },
      schema: { tags: ['dept'], querystring: groupListQuery, response: { 200: envelope(z.array(groupNode)) } },
    },
    async (request) => {
      const principal = principalOf(request);
      const q = request.query;
      const params: unknown[] = [principal.tenantId];
      const where = ['tenant_id = $1'];
      const root = q.parentId ?? principal.stationId;
      if (root) where.push(`id = any(${param(params, await groupSubtree(db, principal.tenantId, root))})`);
      if (q.name) where.push(`name ilike ${param(params, `%${q.name}%`)}`);
      if (q.type) where.push(`type = ${param(params, q.type)}`);
      const rows = await db.query(`select * from rm_groups where ${where.join(' and ')} order by sort, name`, params);
      return ok(treeOf(rows.rows.map(toGroupRow)) as z.infer<typeof groupNode>[]);
    },
  );

  app.get(
    '/api/auth/dept/list',
    {
      config: { permission: perm.groupList },
      schema: { tags: ['dept'], querystring: pageQuery.extend(groupListQuery.shape), response: { 200: envelope(page(groupRow)) } },
    },
    async (request) => {
      const principal = principalOf(request);
      const q = request.query;
      const spec = {
        select: '*',
        from: 'rm_groups',
        where: ['tenant_id = $1'],
        params: [principal.tenantId] as unknown[],
        sortable: { sort: 'sort', name: 'name', createdAt: 'created_at' },
        defaultSort: 'sort',
      };
      if (q.parentId) spec.where.push(`parent_id = ${param(spec.params, q.parentId)}`);
      if (q.name) spec.where.push(`name ilike ${param(spec.params, `%${q.name}%`)}`);
      if (q.type) spec.where.push(`type = ${param(spec.params, q.type)}`);
      if (principal.stationId)
        spec.where.push(`id = any(${param(spec.params, await groupSubtree(db, principal.tenantId, principal.stationId))})`);
      return ok(await pageOf(db, q, spec, toGroupRow));
    },
  );

  app.get(
    '/api/auth/dept/getDeptTypeList',
    {
      config: { permission: 'authenticated' },
      schema: { tags: ['dept'], response: { 200: envelope(z.array(z.object({ value: z.enum(groupTypes) }))) } },
    },
    async () => ok(groupTypes.map((value) => ({ value }))),
  );
};
