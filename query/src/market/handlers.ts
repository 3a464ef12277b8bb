import { DomainError, type MarketRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { marketDataOf } from '@iot/projections/market/data.ts';
import { activeSubscription, marketDatasetById, marketDatasetsPage, marketSubscriptionsPage } from '@iot/projections/market/read.ts';
import { countCall } from '@iot/projections/market/usage.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The data market (issue 20): the publisher's lists, and the data endpoint a subscribed app calls. */
export const marketQueryHandlers: Pick<Handlers<MarketRoutes>, 'market.datasets' | 'market.subscriptions' | 'market.data'> = {
  async 'market.datasets'({ query: q }, ctx) {
    const page = await marketDatasetsPage(ctx.ports.db, callerOf(ctx).tenantId, { name: q.name }, q);
    return {
      ...page,
      rows: page.rows.map((d) => ({
        id: d.id,
        name: d.name,
        source: d.source,
        windowDays: d.windowDays,
        description: d.description,
        subscribers: d.subscribers,
        createTime: d.createdAt.toISOString(),
        updateTime: d.updatedAt.toISOString(),
      })),
    };
  },

  async 'market.subscriptions'({ query: q }, ctx) {
    const page = await marketSubscriptionsPage(ctx.ports.db, callerOf(ctx).tenantId, { datasetId: q.datasetId, status: q.status }, q);
    return {
      ...page,
      rows: page.rows.map((s) => ({
        id: s.id,
        datasetId: s.datasetId,
        datasetName: s.datasetName,
        appId: s.appId,
        appName: s.appName,
        status: s.status,
        calls: s.calls,
        lastCallTime: iso(s.lastCallAt),
        createTime: s.createdAt.toISOString(),
      })),
    };
  },

  /** Only an app reads a data set here, under its live subscription; each call is counted before the data is computed. */
  async 'market.data'({ query }, ctx) {
    const caller = callerOf(ctx);
    const dataset = await marketDatasetById(ctx.ports.db, caller.tenantId, query.datasetId);
    if (!dataset) throw new DomainError('NOT_FOUND');
    const subscription = caller.kind === 'app' ? await activeSubscription(ctx.ports.db, caller.tenantId, dataset.id, caller.id) : null;
    if (!subscription) throw new DomainError('NOT_SUBSCRIBED');
    if (!ctx.ports.timeseries) throw new DomainError('INTERNAL');
    await countCall(ctx.ports.db, caller.tenantId, subscription);
    return marketDataOf({ db: ctx.ports.db, timeseries: ctx.ports.timeseries }, dataset, new Date());
  },
};
