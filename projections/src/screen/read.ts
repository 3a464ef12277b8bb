import type { Page, PageQuery, ScreenWidget, screenSortable } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';

/** A big screen as the screens projection keeps it (rm_screens). */
export type ScreenRecord = {
  id: string;
  tenantId: string;
  name: string;
  widgets: ScreenWidget[];
  createdAt: Date;
  updatedAt: Date;
};
/** A share link of a screen (rm_screen_shares): the hash of its secret, expiry, revocation and the sharer's station. */
export type ScreenShareRecord = {
  id: string;
  tenantId: string;
  screenId: string;
  tokenHash: string;
  expiresAt: Date;
  revokedAt: Date | null;
  /** The group whose subtree the link shows (null: the whole tenant). */
  stationId: string | null;
  createdAt: Date;
};

const SCREEN = `id, tenant_id as "tenantId", name, widgets, created_at as "createdAt", updated_at as "updatedAt"`;
const SHARE = `id, tenant_id as "tenantId", screen_id as "screenId", token_hash as "tokenHash", expires_at as "expiresAt", revoked_at as "revokedAt", station_id as "stationId", created_at as "createdAt"`;

/** A screen of a tenant, by id. */
export async function screenById(db: Sql, tenantId: string, id: string): Promise<ScreenRecord | null> {
  return (
    (await db.query<ScreenRecord>(`select ${SCREEN} from rm_screens where id = $1 and tenant_id = $2`, [id, tenantId])).rows[0] ?? null
  );
}

const sortBy = { createTime: 'created_at', updateTime: 'updated_at', name: 'lower(name)' } satisfies Record<
  (typeof screenSortable)[number],
  string
>;

/** A page of a tenant's screens, newest first unless told; `name` a part of the name, any case. */
export async function screensPage(db: Sql, tenantId: string, filter: { name?: string }, page: PageQuery): Promise<Page<ScreenRecord>> {
  const spec: ListSpec = {
    select: SCREEN,
    from: 'rm_screens',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: sortBy,
    defaultSort: 'created_at',
  };
  if (filter.name) spec.where.push(`name ilike ${param(spec.params, `%${filter.name}%`)}`);
  return pageRows<ScreenRecord>(db, page, spec);
}

/** The share links of a screen of a tenant, newest first. */
export async function sharesOfScreen(db: Sql, tenantId: string, screenId: string): Promise<ScreenShareRecord[]> {
  return (
    await db.query<ScreenShareRecord>(
      `select ${SHARE} from rm_screen_shares where screen_id = $1 and tenant_id = $2 order by created_at desc, id`,
      [screenId, tenantId],
    )
  ).rows;
}

/** A share link by its id, whatever the tenant (a public link names no tenant: its secret is checked against the hash). */
export async function shareById(db: Sql, shareId: string): Promise<ScreenShareRecord | null> {
  return (await db.query<ScreenShareRecord>(`select ${SHARE} from rm_screen_shares where id = $1`, [shareId])).rows[0] ?? null;
}
