import type { DomainEvent } from '../event.ts';
import type { MarketDatasetFields } from './model.ts';

/** What can happen to a published data set: published, edited, withdrawn. */
export type MarketDatasetEvent =
  | DomainEvent<'MarketDatasetPublished', MarketDatasetFields & { datasetId: string }>
  | DomainEvent<'MarketDatasetUpdated', MarketDatasetFields & { datasetId: string }>
  | DomainEvent<'MarketDatasetWithdrawn', { datasetId: string }>;

/** An app of the tenant subscribed to a data set, and the publisher revoking it. Calls are counted, not recorded as events. */
export type MarketSubscriptionEvent =
  // publisherTenantId: another tenant's data set shared with this one; absent for the tenant's own (and before sharing).
  | DomainEvent<'MarketSubscribed', { subscriptionId: string; datasetId: string; appId: string; publisherTenantId?: string }>
  | DomainEvent<'MarketSubscriptionRevoked', { subscriptionId: string }>;
