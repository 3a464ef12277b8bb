import { DomainError, type MarketRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { marketDataOf } from '@iot/projections/market/data.ts';
import {
  activeSubscription,
  marketDatasetById,
  marketDatasetsPage,
  marketSharedPage,
  marketSubscriptionsPage,
  sharedWithTenant,
} from '@iot/projections/market/read.ts';
import { countCall } from '@iot/projections/market/usage.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The data market (issue 20): the publisher's lists, and the data endpoint a subscribed app calls. */
export const marketQueryHandlers: Pick<
  Handlers<MarketRoutes>,
  'market.datasets' | 'market.shared' | 'market.subscriptions' | 'market.data'
> = {
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
        sharing: d.sharing,
        sharedWith: d.sharedWith,
        subscribers: d.subscribers,
        createTime: d.createdAt.toISOString(),
        updateTime: d.updatedAt.toISOString(),
      })),
    };
  },

  async 'market.shared'({ query: q }, ctx) {
    const page = await marketSharedPage(ctx.ports.db, callerOf(ctx).tenantId, { name: q.name }, q);
    return {
      ...page,
      rows: page.rows.map((d) => ({
        id: d.id,
        name: d.name,
        publisherTenantId: d.tenantId,
        publisherName: d.publisherName,
        sourceKind: d.source.kind,
        windowDays: d.windowDays,
        description: d.description,
        sharing: d.sharing,
        createTime: d.createdAt.toISOString(),
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
        subscriberTenantId: s.subscriberTenantId,
        publisherTenantId: s.publisherTenantId,
        status: s.status,
        calls: s.calls,
        lastCallTime: iso(s.lastCallAt),
        createTime: s.createdAt.toISOString(),
      })),
    };
  },

  /**
   * Only an app reads a data set here, under its live subscription, while the publisher still shares the data set with
   * the app's tenant; each call is counted before the data is computed. The data is the publisher's, computed in its tenant.
   */
  async 'market.data'({ query }, ctx) {
    const caller = callerOf(ctx);
    const subscription = caller.kind === 'app' ? await activeSubscription(ctx.ports.db, caller.tenantId, query.datasetId, caller.id) : null;
    const dataset = await marketDatasetById(ctx.ports.db, subscription?.publisherTenantId ?? caller.tenantId, query.datasetId);
    if (!dataset) throw new DomainError('NOT_FOUND');
    if (!subscription || !sharedWithTenant(dataset, caller.tenantId)) throw new DomainError('NOT_SUBSCRIBED');
    if (!ctx.ports.timeseries) throw new DomainError('INTERNAL');
    await countCall(ctx.ports.db, caller.tenantId, subscription.id);
    return marketDataOf({ db: ctx.ports.db, timeseries: ctx.ports.timeseries }, dataset, new Date());
  },
};
