import { backfillProgress, DomainError, type StatRoutes, type StatTaskRow } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { productById, type ProductRecord } from '@iot/projections/device/product-read.ts';
import { statTaskById, statTasksPage, type StatTaskRecord } from '@iot/projections/stat/read.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';

/** Results one read answers at most: a year of hourly windows for one key. */
const MAX_RESULTS = 10_000;

/** The products the tasks name, each read once: a list shows their names and their attributes' names. */
async function productsOf(db: Sql, tenantId: string, tasks: StatTaskRecord[]) {
  const ids = [...new Set(tasks.flatMap((t) => (t.productId ? [t.productId] : [])))];
  const found = await Promise.all(ids.map((id) => productById(db, tenantId, id)));
  return new Map(found.flatMap((p) => (p ? [[p.id, p] as const] : [])));
}

const toRow = (t: StatTaskRecord, products: ReadonlyMap<string, ProductRecord>): StatTaskRow => {
  const product = t.productId ? products.get(t.productId) : undefined;
  return {
    id: t.id,
    name: t.name,
    dataType: t.dataType,
    productId: t.productId,
    productName: product?.name ?? null,
    attribute: t.attribute,
    attributeName: product?.functions.find((f) => f.identifier === t.attribute)?.name ?? null,
    statType: t.statType,
    cycle: t.cycle,
    dimension: t.dimension,
    exclusion: t.exclusion,
    timeZone: t.timeZone,
    remark: t.remark,
    status: t.status,
    createTime: t.createdAt.toISOString(),
    updateTime: t.updatedAt.toISOString(),
    backfill: t.backfill && {
      from: t.backfill.from.toISOString(),
      to: t.backfill.to.toISOString(),
      status: t.backfill.finished ?? (t.backfill.cancelled ? 'cancelled' : 'running'),
      progress: backfillProgress(t.backfill.from, t.backfill.to, t.backfill.doneUntil),
    },
  };
};

/** Statistic tasks and their results (issue 20). */
export const statQueryHandlers: Pick<Handlers<StatRoutes>, 'statTask.list' | 'statTask.detail' | 'statResult.list'> = {
  async 'statTask.list'({ query: q }, ctx) {
    const { tenantId } = callerOf(ctx);
    const page = await statTasksPage(ctx.ports.db, tenantId, { name: q.name, status: q.status, cycle: q.cycle }, q);
    const products = await productsOf(ctx.ports.db, tenantId, page.rows);
    return { ...page, rows: page.rows.map((t) => toRow(t, products)) };
  },

  async 'statTask.detail'({ query }, ctx) {
    const { tenantId } = callerOf(ctx);
    const task = await statTaskById(ctx.ports.db, tenantId, query.id);
    if (!task) throw new DomainError('NOT_FOUND');
    return toRow(task, await productsOf(ctx.ports.db, tenantId, [task]));
  },

  async 'statResult.list'({ query }, ctx) {
    const { tenantId } = callerOf(ctx);
    const task = await statTaskById(ctx.ports.db, tenantId, query.taskId);
    if (!task) throw new DomainError('NOT_FOUND');
    if (!ctx.ports.timeseries) throw new DomainError('INTERNAL');
    const points = await ctx.ports.timeseries.statResults({
      tenantId,
      taskId: task.id,
      from: new Date(query.from),
      to: new Date(query.to),
      ...(query.key === undefined ? {} : { key: query.key }),
      limit: MAX_RESULTS,
    });
    return points.map((p) => ({ windowStart: p.windowStart.toISOString(), key: p.key, value: p.value, samples: p.samples }));
  },
};
