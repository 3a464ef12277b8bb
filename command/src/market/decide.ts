import { createHash } from 'node:crypto';
import { DomainError, type MarketDatasetEvent, type MarketDatasetFields, type MarketSubscriptionEvent } from '@iot/contracts';
import { unreachable, type Decider } from '../decider.ts';
import { recordDecider, type RecordDecider } from '../shared/record-decider.ts';

/** A data set is a record the publisher keeps: published, edited, withdrawn. */
export const marketDatasetDecider = recordDecider<MarketDatasetFields>()(
  { created: 'MarketDatasetPublished', updated: 'MarketDatasetUpdated', deleted: 'MarketDatasetWithdrawn' },
  'datasetId',
) satisfies RecordDecider<MarketDatasetFields, MarketDatasetEvent>;
export const marketDatasetStream = (tenantId: string, id: string) => `marketDataset-${tenantId}.${id}`;

export type MarketSubscriptionCommand =
  | { type: 'Subscribe'; subscriptionId: string; datasetId: string; appId: string; publisherTenantId?: string }
  | { type: 'Revoke'; subscriptionId: string };
export interface MarketSubscriptionState {
  active: boolean;
  exists: boolean;
}

/** One stream per data set and app: an app holds at most one live subscription to a data set, and may subscribe again after a revocation. */
export const marketSubscriptionDecider: Decider<MarketSubscriptionCommand, MarketSubscriptionEvent, MarketSubscriptionState> = {
  initialState: { active: false, exists: false },
  evolve(state, event) {
    switch (event.type) {
      case 'MarketSubscribed':
        return { active: true, exists: true };
      case 'MarketSubscriptionRevoked':
        return { ...state, active: false };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'Subscribe':
        if (state.active) throw new DomainError('CONFLICT');
        return [
          {
            type: 'MarketSubscribed',
            data: {
              subscriptionId: command.subscriptionId,
              datasetId: command.datasetId,
              appId: command.appId,
              ...(command.publisherTenantId ? { publisherTenantId: command.publisherTenantId } : {}),
            },
          },
        ];
      case 'Revoke':
        if (!state.exists) throw new DomainError('NOT_FOUND');
        if (!state.active) return [];
        return [{ type: 'MarketSubscriptionRevoked', data: { subscriptionId: command.subscriptionId } }];
      default:
        return unreachable(command);
    }
  },
};
/** The id of the subscription of an app to a data set: the same pair, the same stream. */
export const subscriptionIdOf = (datasetId: string, appId: string) =>
  createHash('sha256').update(`${datasetId}\n${appId}`).digest('hex').slice(0, 32);
export const marketSubscriptionStream = (tenantId: string, id: string) => `marketSubscription-${tenantId}.${id}`;
