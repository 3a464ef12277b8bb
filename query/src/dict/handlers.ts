import type { DictRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { iso, pageOf, param, type ListSpec } from '../shared/paging.ts';

/** Reads of the dictionary screen: types and their items. */
export const dictQueryHandlers: Pick<Handlers<DictRoutes>, 'dict.list' | 'dict.items'> = {
  async 'dict.list'({ query: q }, ctx) {
    const spec: ListSpec = {
      select: '*',
      from: 'rm_dict_types',
      where: ['tenant_id = $1'],
      params: [callerOf(ctx).tenantId],
      sortable: { createdAt: 'created_at', code: 'code', name: 'name' },
      defaultSort: 'created_at',
    };
    if (q.name) spec.where.push(`name ilike ${param(spec.params, `%${q.name}%`)}`);
    if (q.code) spec.where.push(`code ilike ${param(spec.params, `%${q.code}%`)}`);
    return pageOf(ctx.ports.db, q, spec, (r) => ({
      id: r.id as string,
      code: r.code as string,
      name: r.name as string,
      status: r.status as 'enabled' | 'stopped',
      remark: (r.remark as string | null) ?? null,
      createdAt: iso(r.created_at),
    }));
  },

  async 'dict.items'({ query: q }, ctx) {
    const spec: ListSpec = {
      select: 'i.*',
      from: 'rm_dict_items i join rm_dict_types t on t.id = i.type_id',
      where: ['i.tenant_id = $1'],
      params: [callerOf(ctx).tenantId],
      sortable: { sort: 'i.sort', label: 'i.label', value: 'i.value' },
      defaultSort: 'i.sort',
    };
    if (q.typeId) spec.where.push(`i.type_id = ${param(spec.params, q.typeId)}`);
    if (q.code) spec.where.push(`t.code = ${param(spec.params, q.code)}`);
    if (q.label) spec.where.push(`i.label ilike ${param(spec.params, `%${q.label}%`)}`);
    // Items read in their own order unless another is asked for.
    return pageOf(ctx.ports.db, { ...q, order: q.sort ? q.order : 'asc' }, spec, (r) => ({
      id: r.id as string,
      typeId: r.type_id as string,
      label: r.label as string,
      value: r.value as string,
      sort: r.sort as number,
      status: r.status as 'enabled' | 'stopped',
      remark: (r.remark as string | null) ?? null,
    }));
  },
};
