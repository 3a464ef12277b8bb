import { DomainError, type MarketDatasetFields, type MarketRoutes } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { assertOwnGroup } from '../group/own.ts';
import { loadState, newAggregateId } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import {
  marketDatasetDecider,
  marketDatasetStream,
  marketSubscriptionDecider,
  marketSubscriptionStream,
  subscriptionIdOf,
} from './decide.ts';

/** A device-data set names a group of the caller's tenant (a task or report is checked when the data set is read). */
async function checkSource(ctx: RequestContext, fields: MarketDatasetFields) {
  if (fields.source.kind === 'deviceData')
    await assertOwnGroup(ctx.ports.lookups, callerOf(ctx).tenantId, fields.source.groupId, 'groupId');
}

const datasetStream = (ctx: RequestContext, id: string) => marketDatasetStream(callerOf(ctx).tenantId, id);

export const marketHandlers: Pick<
  Handlers<MarketRoutes>,
  'market.publish' | 'market.update' | 'market.withdraw' | 'market.subscribe' | 'market.revoke'
> = {
  async 'market.publish'({ body }, ctx) {
    await checkSource(ctx, body);
    const id = newAggregateId(commandContextOf(ctx));
    await runCommand(ctx, marketDatasetDecider, datasetStream(ctx, id), { type: 'Create', id, fields: body });
    return { id };
  },
  async 'market.update'({ body }, ctx) {
    const { id, ...fields } = body;
    await checkSource(ctx, fields);
    await runCommand(ctx, marketDatasetDecider, datasetStream(ctx, id), { type: 'Update', id, fields });
    return { id };
  },
  async 'market.withdraw'({ query }, ctx) {
    await runCommand(ctx, marketDatasetDecider, datasetStream(ctx, query.id), { type: 'Delete', id: query.id });
    return { id: query.id };
  },
  async 'market.subscribe'({ body }, ctx) {
    const { tenantId } = callerOf(ctx);
    const dataset = (await loadState(ctx.ports.store, marketDatasetDecider, datasetStream(ctx, body.datasetId))).state;
    if (!dataset.exists || dataset.deleted) throw new DomainError('NOT_FOUND', { field: 'datasetId' });
    if (!(await ctx.ports.lookups.appById(tenantId, body.appId))) throw new DomainError('NOT_FOUND', { field: 'appId' });
    const id = subscriptionIdOf(body.datasetId, body.appId);
    await runCommand(ctx, marketSubscriptionDecider, marketSubscriptionStream(tenantId, id), {
      type: 'Subscribe',
      subscriptionId: id,
      ...body,
    });
    return { id };
  },
  async 'market.revoke'({ body }, ctx) {
    await runCommand(ctx, marketSubscriptionDecider, marketSubscriptionStream(callerOf(ctx).tenantId, body.id), {
      type: 'Revoke',
      subscriptionId: body.id,
    });
    return { id: body.id };
  },
};
