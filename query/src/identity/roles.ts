import { z } from 'zod';
import {
  availability,
  DomainError,
  entityId,
  envelope,
  page,
  pageQuery,
  perm,
  roleCheckQuery,
  roleListQuery,
  roleRow,
  type RoleRow,
} from '@iot/contracts';
import type { RoutesPlugin } from '@iot/infra/http/app.ts';
import { ok } from '@iot/infra/http/envelope.ts';
import { assertOwnRow } from '../shared/lookups.ts';
import { principalOf } from '@iot/infra/http/principal.ts';
import { iso, pageOf, param } from '../shared/paging.ts';

const toRoleRow = (r: Record<string, unknown>): RoleRow => ({
  id: r.id as string,
  name: r.name as string,
  remark: (r.remark as string | null) ?? null,
  menuIds: (r.menu_ids as string[]) ?? [],
  builtin: (r.builtin as string | null) ?? null,
  createdAt: iso(r.created_at),
  createdBy: r.created_by as string,
});

/** Reads of the role screen. */
export const roleQueryRoutes: RoutesPlugin = async (app, { db }) => {
  app.get(
    '/api/auth/role',
    {
      config: { permission: perm.roleList },
      schema: { tags: ['role'], querystring: pageQuery.extend(roleListQuery.shape), response: { 200: envelope(page(roleRow)) } },
    },
    async (request) => {
      const q = request.query;
      const spec = {
        select: '*',
        from: 'rm_roles',
        where: ['tenant_id = $1'],
        params: [principalOf(request).tenantId] as unknown[],
        sortable: { createdAt: 'created_at', name: 'lower(name)' },
        defaultSort: 'created_at',
      };
      if (q.name) spec.where.push(`name ilike ${param(spec.params, `%${q.name}%`)}`);
      return ok(await pageOf(db, q, spec, toRoleRow));
    },
  );

  app.get(
    '/api/auth/role/menu',
    {
      config: { permission: perm.roleList },
      schema: {
        tags: ['role'],
        querystring: z.object({ id: entityId }).strict(),
        response: { 200: envelope(z.object({ id: z.string(), menuIds: z.array(z.string()) })) },
      },
    },
    async (request) => {
      const row = (
        await db.query<{ menu_ids: string[] }>('select menu_ids from rm_roles where id = $1 and tenant_id = $2', [
          request.query.id,
          principalOf(request).tenantId,
        ])
      ).rows[0];
      if (!row) throw new DomainError('NOT_FOUND');
      return ok({ id: request.query.id, menuIds: row.menu_ids });
    },
  );

  app.get(
    '/api/auth/role/check',
    {
      config: { permission: perm.roleList },
      schema: { tags: ['role'], querystring: roleCheckQuery, response: { 200: envelope(availability) } },
    },
    async (request) => {
      const { name, id } = request.query;
      if (id) await assertOwnRow(db, 'rm_roles', id, principalOf(request).tenantId);
      const found = await db.query('select 1 from rm_roles where tenant_id = $1 and lower(name) = lower($2) and id <> $3', [
        principalOf(request).tenantId,
        name,
        id ?? '',
      ]);
      return ok({ available: found.rowCount === 0 });
    },
  );
};
