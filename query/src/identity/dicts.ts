import { dictItemListQuery, dictItemRow, dictTypeListQuery, dictTypeRow, envelope, page, pageQuery, perm } from '@iot/contracts';
import type { RoutesPlugin } from '@iot/infra/http/app.ts';
import { ok } from '@iot/infra/http/envelope.ts';
import { principalOf } from '@iot/infra/http/principal.ts';
import { iso, pageOf, param } from '../shared/paging.ts';

/** Reads of the dictionary screen: types and their items. */
export const dictQueryRoutes: RoutesPlugin = async (app, { db }) => {
  app.get(
    '/api/auth/dict',
    {
      config: { permission: perm.dictList },
      schema: { tags: ['dict'], querystring: pageQuery.extend(dictTypeListQuery.shape), response: { 200: envelope(page(dictTypeRow)) } },
    },
    async (request) => {
      const q = request.query;
      const spec = {
        select: '*',
        from: 'rm_dict_types',
        where: ['tenant_id = $1'],
        params: [principalOf(request).tenantId] as unknown[],
        sortable: { createdAt: 'created_at', code: 'code', name: 'name' },
        defaultSort: 'created_at',
      };
      if (q.name) spec.where.push(`name ilike ${param(spec.params, `%${q.name}%`)}`);
      if (q.code) spec.where.push(`code ilike ${param(spec.params, `%${q.code}%`)}`);
      return ok(
        await pageOf(db, q, spec, (r) => ({
          id: r.id as string,
          code: r.code as string,
          name: r.name as string,
          status: r.status as 'enabled' | 'stopped',
          remark: (r.remark as string | null) ?? null,
          createdAt: iso(r.created_at),
        })),
      );
    },
  );

  app.get(
    '/api/auth/dict/item',
    {
      config: { permission: perm.dictList },
      schema: { tags: ['dict'], querystring: pageQuery.extend(dictItemListQuery.shape), response: { 200: envelope(page(dictItemRow)) } },
    },
    async (request) => {
      const q = request.query;
      const spec = {
        select: 'i.*',
        from: 'rm_dict_items i join rm_dict_types t on t.id = i.type_id',
        where: ['i.tenant_id = $1'],
        params: [principalOf(request).tenantId] as unknown[],
        sortable: { sort: 'i.sort', label: 'i.label', value: 'i.value' },
        defaultSort: 'i.sort',
      };
      if (q.typeId) spec.where.push(`i.type_id = ${param(spec.params, q.typeId)}`);
      if (q.code) spec.where.push(`t.code = ${param(spec.params, q.code)}`);
      if (q.label) spec.where.push(`i.label ilike ${param(spec.params, `%${q.label}%`)}`);
      return ok(
        await pageOf(db, { ...q, order: q.sort ? q.order : 'asc' }, spec, (r) => ({
          id: r.id as string,
          typeId: r.type_id as string,
          label: r.label as string,
          value: r.value as string,
          sort: r.sort as number,
          status: r.status as 'enabled' | 'stopped',
          remark: (r.remark as string | null) ?? null,
        })),
      );
    },
  );
};
