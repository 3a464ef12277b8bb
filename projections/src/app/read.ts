import type { AppFields, AppType, EnabledStatus, Page, PageQuery, appSortable } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';
import type { Fields } from '../shared/row.ts';

/** An app and its key (never its secret) as the apps projection keeps it (rm_apps). */
export type AppRecord = Fields<AppFields> & {
  id: string;
  tenantId: string;
  ownerId: string;
  appKey: string;
  status: EnabledStatus;
  createdAt: Date;
  secretRotatedAt: Date | null;
  updatedAt: Date;
};

const APP = `id, tenant_id as "tenantId", owner_id as "ownerId", app_key as "appKey", type, name, scope, sharing, status, remark,
  created_at as "createdAt", secret_rotated_at as "secretRotatedAt", updated_at as "updatedAt"`;

/** An app of a tenant, by id. */
export async function appById(db: Sql, tenantId: string, id: string): Promise<AppRecord | null> {
  return (await db.query<AppRecord>(`select ${APP} from rm_apps where id = $1 and tenant_id = $2`, [id, tenantId])).rows[0] ?? null;
}

/** The app a key names, platform-wide (keys are unique). */
export async function appByKey(db: Sql, appKey: string): Promise<AppRecord | null> {
  return (await db.query<AppRecord>(`select ${APP} from rm_apps where app_key = $1`, [appKey])).rows[0] ?? null;
}

export interface AppFilter {
  /**
   * Only the apps this viewer sees (spec §6): their own, those shared globally within the tenant, and those
   * shared with the organisation whose owner is among `organisation` (the users of the viewer's group's ancestry).
   */
  visibleTo?: { viewerId: string; organisation: string[] };
  /** A part of the name. */
  name?: string;
  type?: AppType;
}
/** The columns a list sorts by, for each name the route's query allows. */
const sortBy = { createdAt: 'created_at', name: 'lower(name)' } satisfies Record<(typeof appSortable)[number], string>;

/** A page of a tenant's apps, filtered; sorted as the route allows, newest first by default. */
export async function appsPage(db: Sql, tenantId: string, filter: AppFilter, page: PageQuery): Promise<Page<AppRecord>> {
  const spec: ListSpec = {
    select: APP,
    from: 'rm_apps',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: sortBy,
    defaultSort: 'created_at',
  };
  const { where, params } = spec;
  if (filter.visibleTo)
    where.push(
      `(owner_id = ${param(params, filter.visibleTo.viewerId)} or sharing = 'global'
        or (sharing = 'organisation' and owner_id = any(${param(params, filter.visibleTo.organisation)})))`,
    );
  if (filter.name) where.push(`name ilike ${param(params, `%${filter.name}%`)}`);
  if (filter.type) where.push(`type = ${param(params, filter.type)}`);
  return pageRows<AppRecord>(db, page, spec);
}

/** Every app's name by tenant, oldest first: what app-name claims taken before claims existed are made from. */
export async function appNames(db: Sql): Promise<Array<{ id: string; tenantId: string; name: string }>> {
  return (
    await db.query<{ id: string; tenantId: string; name: string }>(
      'select id, tenant_id as "tenantId", name from rm_apps order by created_at',
    )
  ).rows;
}
