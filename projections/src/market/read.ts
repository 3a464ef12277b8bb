import type { MarketDatasetFields, Page, PageQuery } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';

/** A published data set (rm_market_datasets) with its live subscriptions counted. */
export type MarketDatasetRecord = MarketDatasetFields & {
  id: string;
  tenantId: string;
  subscribers: number;
  createdAt: Date;
  updatedAt: Date;
};

const DATASET = `d.id, d.tenant_id as "tenantId", d.name, d.source, d.window_days as "windowDays", d.description, d.sharing,
  d.shared_with as "sharedWith",
  (select count(*)::int from rm_market_subscriptions s where s.dataset_id = d.id and s.status = 'active') as subscribers,
  d.created_at as "createdAt", d.updated_at as "updatedAt"`;

export async function marketDatasetById(db: Sql, tenantId: string, id: string): Promise<MarketDatasetRecord | null> {
  return (
    (
      await db.query<MarketDatasetRecord>(`select ${DATASET} from rm_market_datasets d where d.id = $1 and d.tenant_id = $2`, [
        id,
        tenantId,
      ])
    ).rows[0] ?? null
  );
}

/** Whether a tenant's apps may read a data set: the publisher's own, or shared with that tenant (chosen or global). */
export const sharedWithTenant = (dataset: Pick<MarketDatasetRecord, 'tenantId' | 'sharing' | 'sharedWith'>, tenantId: string) =>
  dataset.tenantId === tenantId || dataset.sharing === 'global' || (dataset.sharing === 'chosen' && dataset.sharedWith.includes(tenantId));

/** A data set another tenant shares with this one, with its publisher's company name. */
export type MarketSharedRecord = MarketDatasetRecord & { publisherName: string | null };

/** A page of the data sets other tenants share with `tenantId` (chosen with it, or global), newest first unless told. */
export async function marketSharedPage(
  db: Sql,
  tenantId: string,
  filter: { name?: string },
  page: PageQuery,
): Promise<Page<MarketSharedRecord>> {
  const spec: ListSpec = {
    select: `${DATASET}, (select t.company from rm_tenants t where t.id = d.tenant_id) as "publisherName"`,
    from: 'rm_market_datasets d',
    where: [`d.tenant_id <> $1`, `(d.sharing = 'global' or (d.sharing = 'chosen' and $1 = any(d.shared_with)))`],
    params: [tenantId],
    sortable: { createTime: 'd.created_at', name: 'lower(d.name)' },
    defaultSort: 'd.created_at',
  };
  if (filter.name) spec.where.push(`d.name ilike ${param(spec.params, `%${filter.name}%`)}`);
  return pageRows<MarketSharedRecord>(db, page, spec);
}

/** A page of a tenant's data sets, newest first unless told. */
export async function marketDatasetsPage(
  db: Sql,
  tenantId: string,
  filter: { name?: string },
  page: PageQuery,
): Promise<Page<MarketDatasetRecord>> {
  const spec: ListSpec = {
    select: DATASET,
    from: 'rm_market_datasets d',
    where: ['d.tenant_id = $1'],
    params: [tenantId],
    sortable: { createTime: 'd.created_at', name: 'lower(d.name)' },
    defaultSort: 'd.created_at',
  };
  if (filter.name) spec.where.push(`d.name ilike ${param(spec.params, `%${filter.name}%`)}`);
  return pageRows<MarketDatasetRecord>(db, page, spec);
}

/** A subscription with the names of its data set and app, and its calls (market_usage). */
export type MarketSubscriptionRecord = {
  id: string;
  datasetId: string;
  datasetName: string | null;
  appId: string;
  appName: string | null;
  subscriberTenantId: string;
  publisherTenantId: string;
  status: 'active' | 'revoked';
  calls: number;
  lastCallAt: Date | null;
  createdAt: Date;
};

/** A page of the subscriptions of the tenant's apps and of other tenants' apps to its data sets, newest first unless told. */
export async function marketSubscriptionsPage(
  db: Sql,
  tenantId: string,
  filter: { datasetId?: string; status?: 'active' | 'revoked' },
  page: PageQuery,
): Promise<Page<MarketSubscriptionRecord>> {
  const spec: ListSpec = {
    select: `s.id, s.dataset_id as "datasetId", (select d.name from rm_market_datasets d where d.id = s.dataset_id) as "datasetName",
      s.app_id as "appId", (select a.name from rm_apps a where a.id = s.app_id) as "appName", s.tenant_id as "subscriberTenantId",
      s.publisher_tenant_id as "publisherTenantId", s.status,
      coalesce((select u.calls from market_usage u where u.subscription_id = s.id), 0)::int as calls,
      (select u.last_call_at from market_usage u where u.subscription_id = s.id) as "lastCallAt", s.created_at as "createdAt"`,
    from: 'rm_market_subscriptions s',
    where: ['(s.tenant_id = $1 or s.publisher_tenant_id = $1)'],
    params: [tenantId],
    sortable: { createTime: 's.created_at' },
    defaultSort: 's.created_at',
  };
  if (filter.datasetId) spec.where.push(`s.dataset_id = ${param(spec.params, filter.datasetId)}`);
  if (filter.status) spec.where.push(`s.status = ${param(spec.params, filter.status)}`);
  return pageRows<MarketSubscriptionRecord>(db, page, spec);
}

/** The live subscription of an app of the tenant to a data set (its own or another tenant's), or null. */
export async function activeSubscription(
  db: Sql,
  tenantId: string,
  datasetId: string,
  appId: string,
): Promise<{ id: string; publisherTenantId: string } | null> {
  const rows = await db.query<{ id: string; publisherTenantId: string }>(
    `select id, publisher_tenant_id as "publisherTenantId" from rm_market_subscriptions
     where tenant_id = $1 and dataset_id = $2 and app_id = $3 and status = 'active'`,
    [tenantId, datasetId, appId],
  );
  return rows.rows[0] ?? null;
}
