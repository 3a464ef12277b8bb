import type { DictRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { dictItemsPage, dictTypesPage } from '@iot/projections/dict/read.ts';

/** Reads of the dictionary screen: types and their items. */
export const dictQueryHandlers: Pick<Handlers<DictRoutes>, 'dict.list' | 'dict.items'> = {
  async 'dict.list'({ query: q }, ctx) {
    const page = await dictTypesPage(ctx.ports.db, callerOf(ctx).tenantId, { name: q.name, code: q.code }, q);
    return {
      ...page,
      rows: page.rows.map((t) => ({
        id: t.id,
        code: t.code,
        name: t.name,
        status: t.status,
        remark: t.remark,
        createdAt: t.createdAt.toISOString(),
      })),
    };
  },

  async 'dict.items'({ query: q }, ctx) {
    // Items read in their own order unless another is asked for.
    const page = await dictItemsPage(
      ctx.ports.db,
      callerOf(ctx).tenantId,
      { typeId: q.typeId, code: q.code, label: q.label },
      { ...q, order: q.sort ? q.order : 'asc' },
    );
    return {
      ...page,
      rows: page.rows.map((i) => ({
        id: i.id,
        typeId: i.typeId,
        label: i.label,
        value: i.value,
        sort: i.sort,
        status: i.status,
        remark: i.remark,
      })),
    };
  },
};
