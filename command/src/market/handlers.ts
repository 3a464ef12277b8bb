import { DomainError, type MarketDatasetFields, type MarketRoutes } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { assertOwnGroup } from '../group/own.ts';
import { tenantDecider, tenantStream } from '../tenant/decide.ts';
import { loadState, newAggregateId } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import {
  marketDatasetDecider,
  marketDatasetStream,
  marketSubscriptionDecider,
  marketSubscriptionStream,
  subscriptionIdOf,
} from './decide.ts';

/**
 * A device-data set names a group of the caller's tenant (a task or report is checked when the data set is read); a
 * data set shared with chosen tenants names tenants that exist, other than the publisher.
 */
async function checkSource(ctx: RequestContext, fields: MarketDatasetFields) {
  const { tenantId } = callerOf(ctx);
  if (fields.source.kind === 'deviceData') await assertOwnGroup(ctx.ports.lookups, tenantId, fields.source.groupId, 'groupId');
  for (const other of new Set(fields.sharedWith)) {
    const tenant = other === tenantId ? null : (await loadState(ctx.ports.store, tenantDecider, tenantStream(other))).state;
    if (!tenant || tenant.status === 'none')
      throw new DomainError('VALIDATION', {
        fields: [{ field: 'body.sharedWith', message: `${other}: not another tenant of the platform` }],
      });
  }
}

/** Whether the data set's publisher shares it with a tenant (the §6 rules: internal, chosen, global). */
const sharesWith = (dataset: MarketDatasetFields, tenantId: string) =>
  dataset.sharing === 'global' || (dataset.sharing === 'chosen' && dataset.sharedWith.includes(tenantId));

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
  /** An app of the caller's tenant subscribes to a data set of its own tenant, or of another tenant that shares it. */
  async 'market.subscribe'({ body }, ctx) {
    const { tenantId } = callerOf(ctx);
    const publisher = body.publisherTenantId ?? tenantId;
    const dataset = (await loadState(ctx.ports.store, marketDatasetDecider, marketDatasetStream(publisher, body.datasetId))).state;
    // A data set not shared with the caller's tenant is answered as one that does not exist: its name is not disclosed.
    const fields = dataset.exists && !dataset.deleted ? dataset.fields : null;
    if (!fields || (publisher !== tenantId && !sharesWith(fields, tenantId))) throw new DomainError('NOT_FOUND', { field: 'datasetId' });
    if (!(await ctx.ports.lookups.appById(tenantId, body.appId))) throw new DomainError('NOT_FOUND', { field: 'appId' });
    const id = subscriptionIdOf(body.datasetId, body.appId);
    await runCommand(ctx, marketSubscriptionDecider, marketSubscriptionStream(tenantId, id), {
      type: 'Subscribe',
      subscriptionId: id,
      datasetId: body.datasetId,
      appId: body.appId,
      ...(publisher === tenantId ? {} : { publisherTenantId: publisher }),
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
