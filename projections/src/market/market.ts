import type { MarketDatasetEvent, MarketSubscriptionEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Published data sets and the apps' subscriptions to them, as the data market screen lists them and the data endpoint checks them. */
export const marketProjection = projection<MarketDatasetEvent | MarketSubscriptionEvent>({
  name: 'market',
  handles: ['MarketDatasetPublished', 'MarketDatasetUpdated', 'MarketDatasetWithdrawn', 'MarketSubscribed', 'MarketSubscriptionRevoked'],
  tables: ['rm_market_datasets', 'rm_market_subscriptions'],
  schema: `
    create table rm_market_datasets (
      id text primary key,
      tenant_id text not null,
      name text not null,
      source jsonb not null,
      window_days int not null,
      description text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index rm_market_datasets_tenant on rm_market_datasets (tenant_id, created_at desc);
    create table rm_market_subscriptions (
      id text primary key,
      tenant_id text not null,
      dataset_id text not null,
      app_id text not null,
      status text not null,
      created_at timestamptz not null
    );
    create index rm_market_subscriptions_tenant on rm_market_subscriptions (tenant_id, created_at desc);`,
  migrations: [
    {
      version: 2,
      name: 'sharing',
      sql: `alter table rm_market_datasets add column if not exists sharing text not null default 'internal',
          add column if not exists shared_with text[] not null default '{}';
        create index if not exists rm_market_datasets_shared on rm_market_datasets (sharing) where sharing <> 'internal';
        alter table rm_market_subscriptions add column if not exists publisher_tenant_id text;
        update rm_market_subscriptions set publisher_tenant_id = tenant_id where publisher_tenant_id is null;
        alter table rm_market_subscriptions alter column publisher_tenant_id set not null;
        create index if not exists rm_market_subscriptions_publisher on rm_market_subscriptions (publisher_tenant_id, created_at desc);`,
    },
  ],
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    switch (event.type) {
      case 'MarketDatasetPublished':
      case 'MarketDatasetUpdated': {
        const d = event.data;
        await tx.query(
          `insert into rm_market_datasets (id, tenant_id, name, source, window_days, description, sharing, shared_with, created_at, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
           on conflict (id) do update set name = $3, source = $4, window_days = $5, description = $6, sharing = $7, shared_with = $8,
             updated_at = $9`,
          [
            d.datasetId,
            event.metadata.tenantId,
            d.name,
            JSON.stringify(d.source),
            d.windowDays,
            d.description,
            d.sharing,
            d.sharedWith,
            at,
          ],
        );
        return;
      }
      case 'MarketDatasetWithdrawn':
        await tx.query('delete from rm_market_datasets where id = $1', [event.data.datasetId]);
        await tx.query(`update rm_market_subscriptions set status = 'revoked' where dataset_id = $1`, [event.data.datasetId]);
        return;
      case 'MarketSubscribed':
        await tx.query(
          `insert into rm_market_subscriptions (id, tenant_id, dataset_id, app_id, publisher_tenant_id, status, created_at)
           values ($1, $2, $3, $4, $5, 'active', $6)
           on conflict (id) do update set status = 'active'`,
          [
            event.data.subscriptionId,
            event.metadata.tenantId,
            event.data.datasetId,
            event.data.appId,
            event.data.publisherTenantId ?? event.metadata.tenantId,
            at,
          ],
        );
        return;
      case 'MarketSubscriptionRevoked':
        await tx.query(`update rm_market_subscriptions set status = 'revoked' where id = $1`, [event.data.subscriptionId]);
        return;
    }
  },
});
