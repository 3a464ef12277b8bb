import type { FaultView, Page, PageQuery, siteSortable, SiteKind } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';

/**
 * Alarm statistics over the alarms read model (rm_alarms), the group tree (rm_groups) and the devices
 * (rm_devices): every count and duration is folded in PostgreSQL, never by reading the alarms into Node.
 */

export interface FaultScope {
  tenantId: string;
  view: FaultView;
  /** Alarms raised at or after. */
  from: string;
  /** Alarms raised before; an active alarm's duration runs up to here (or now, when earlier). */
  to: string;
  /** Only alarms of devices in these groups (a station's or a chosen group's subtree); none: the whole tenant. */
  groupIds?: string[];
  /** The region view's root: buckets are the groups right below it (none: the top-level groups). */
  root?: string | null;
  /** The zone the trend's days are cut in. */
  timeZone: string;
}

/** The `scoped` alarms of a view, each with its bucket (`bid`) and its duration in seconds (`dur`), as a CTE prefix. */
function scopedAlarms(scope: FaultScope): { sql: string; params: unknown[] } {
  const params: unknown[] = [scope.tenantId, scope.from, scope.to];
  const ancestry = `anc(gid, aid, depth) as (
      select id, id, 0 from rm_groups where tenant_id = $1
      union all
      select anc.gid, g.parent_id, anc.depth + 1 from anc join rm_groups g on g.id = anc.aid and g.tenant_id = $1
      where g.parent_id is not null)`;
  let buckets: string;
  let onlyBucketed = false;
  switch (scope.view) {
    case 'business':
      buckets = `bucket(gid, bid) as (select id, id from rm_groups where tenant_id = $1)`;
      break;
    case 'garage':
    case 'project':
      onlyBucketed = true;
      buckets = `bucket(gid, bid) as (
        select distinct on (anc.gid) anc.gid, anc.aid from anc join rm_groups g on g.id = anc.aid
        where g.type = ${param(params, scope.view)} order by anc.gid, anc.depth)`;
      break;
    case 'region':
    case 'national': {
      const root = scope.root ?? null;
      buckets = root
        ? `bucket(gid, bid) as (
            select anc.gid, anc.aid from anc join rm_groups g on g.id = anc.aid where g.parent_id = ${param(params, root)})`
        : `bucket(gid, bid) as (select anc.gid, anc.aid from anc join rm_groups g on g.id = anc.aid where g.parent_id is null)`;
      break;
    }
  }
  const where = ['a.tenant_id = $1', 'a.raised_at >= $2::timestamptz', 'a.raised_at < $3::timestamptz'];
  if (scope.groupIds) where.push(`a.group_id = any(${param(params, scope.groupIds)})`);
  if (onlyBucketed) where.push('b.bid is not null');
  const sql = `with recursive ${ancestry}, ${buckets},
    scoped as (
      select a.id, a.device_id, a.device_name, a.sn, a.level, a.status, a.raised_at, a.cleared_at, b.bid,
        extract(epoch from greatest(least(coalesce(a.cleared_at, now()), $3::timestamptz) - a.raised_at, interval '0'))::float8 as dur,
        case when a.cleared_at is not null then extract(epoch from a.cleared_at - a.raised_at)::float8 end as clear_s
      from rm_alarms a left join bucket b on b.gid = a.group_id
      where ${where.join(' and ')})`;
  return { sql, params };
}

export interface FaultStatsRecord {
  summary: { alarms: number; active: number; cleared: number; devices: number; durationSeconds: number; meanClearSeconds: number | null };
  byLevel: Array<{ level: number; alarms: number; durationSeconds: number }>;
  byDay: Array<{ day: string; alarms: number; cleared: number }>;
  byProduct: Array<{ productId: string | null; productName: string | null; alarms: number; devices: number; durationSeconds: number }>;
  byGroup: Array<{
    groupId: string | null;
    groupName: string | null;
    groupType: string | null;
    alarms: number;
    active: number;
    devices: number;
    durationSeconds: number;
    meanClearSeconds: number | null;
  }>;
  topDevices: Array<{
    deviceId: string;
    deviceName: string | null;
    sn: string | null;
    alarms: number;
    active: number;
    durationSeconds: number;
  }>;
}

const folds = `count(*)::int as alarms, coalesce(sum(dur), 0)::float8 as "durationSeconds"`;

/** The statistics of a view: summary, by level, by day, by product, by the view's group buckets, and the top devices. */
export async function faultStats(db: Sql, scope: FaultScope, top: number): Promise<FaultStatsRecord> {
  const { sql, params } = scopedAlarms(scope);
  const tz = params.length + 1;
  const topAt = params.length + 1;
  const [summary, byLevel, byDay, byProduct, byGroup, topDevices] = await Promise.all([
    db.query<FaultStatsRecord['summary']>(
      `${sql} select ${folds}, count(*) filter (where status = 'active')::int as active,
         count(*) filter (where cleared_at is not null)::int as cleared, count(distinct device_id)::int as devices,
         avg(clear_s)::float8 as "meanClearSeconds" from scoped`,
      params,
    ),
    db.query<FaultStatsRecord['byLevel'][number]>(`${sql} select level, ${folds} from scoped group by level order by level`, params),
    db.query<FaultStatsRecord['byDay'][number]>(
      `${sql} select to_char(raised_at at time zone $${tz}, 'YYYY-MM-DD') as day, count(*)::int as alarms,
         count(*) filter (where cleared_at is not null)::int as cleared from scoped group by 1 order by 1`,
      [...params, scope.timeZone],
    ),
    db.query<FaultStatsRecord['byProduct'][number]>(
      `${sql} select d.product_id as "productId", p.name as "productName", ${folds}, count(distinct s.device_id)::int as devices
       from scoped s left join rm_devices d on d.id = s.device_id left join rm_products p on p.id = d.product_id
       group by d.product_id, p.name order by alarms desc, "productName"`,
      params,
    ),
    db.query<FaultStatsRecord['byGroup'][number]>(
      `${sql} select s.bid as "groupId", g.name as "groupName", g.type as "groupType", ${folds},
         count(*) filter (where s.status = 'active')::int as active, count(distinct s.device_id)::int as devices,
         avg(s.clear_s)::float8 as "meanClearSeconds"
       from scoped s left join rm_groups g on g.id = s.bid group by s.bid, g.name, g.type order by alarms desc, "groupName"`,
      params,
    ),
    db.query<FaultStatsRecord['topDevices'][number]>(
      `${sql} select device_id as "deviceId", max(device_name) as "deviceName", max(sn) as sn, ${folds},
         count(*) filter (where status = 'active')::int as active
       from scoped group by device_id order by alarms desc, "durationSeconds" desc, device_id limit $${topAt}`,
      [...params, top],
    ),
  ]);
  return {
    summary: summary.rows[0]!,
    byLevel: byLevel.rows,
    byDay: byDay.rows,
    byProduct: byProduct.rows,
    byGroup: byGroup.rows,
    topDevices: topDevices.rows,
  };
}

// ---------------------------------------------------------------- projects and garages

export type SiteRecord = {
  id: string;
  name: string;
  type: string;
  location: string | null;
  parentName: string | null;
  devices: number;
  online: number;
  offline: number;
  onlineRate: number | null;
  activeAlarms: number;
  alarms: number;
};
export interface SiteFilter {
  kind: SiteKind;
  /** Only these groups (a station's subtree). */
  ids?: string[];
  /** A part of the name. */
  name?: string;
  /** The range the alarm count covers. */
  from: string;
  to: string;
}
const siteSortBy = {
  name: 'lower(g.name)',
  devices: 's.devices',
  onlineRate: 's.online_rate',
  activeAlarms: 's.active_alarms',
  alarms: 's.alarms',
} satisfies Record<(typeof siteSortable)[number], string>;

/**
 * A page of the tenant's groups of one kind (project or garage), each with what its subtree holds: devices,
 * online ones, active alarms and alarms raised in the range.
 */
export async function sitesPage(db: Sql, tenantId: string, filter: SiteFilter, page: PageQuery): Promise<Page<SiteRecord>> {
  const params: unknown[] = [tenantId, filter.kind, filter.from, filter.to];
  const where = ['g.tenant_id = $1', 'g.type = $2'];
  if (filter.ids) where.push(`g.id = any(${param(params, filter.ids)})`);
  if (filter.name) where.push(`g.name ilike ${param(params, `%${filter.name}%`)}`);
  // Each site's subtree is walked once for its devices and once for its alarms, inside the lateral join.
  const stats = `lateral (
      with recursive t(id) as (
        select g.id union select c.id from rm_groups c join t on c.parent_id = t.id where c.tenant_id = g.tenant_id
      ), dev as (
        select count(*)::int as n, count(*) filter (where d.status = 'online')::int as online,
          count(*) filter (where d.status = 'offline')::int as offline
        from rm_devices d where d.tenant_id = g.tenant_id and d.group_id in (select id from t)
      ), al as (
        select count(*) filter (where a.status = 'active')::int as active,
          count(*) filter (where a.raised_at >= $3::timestamptz and a.raised_at < $4::timestamptz)::int as alarms
        from rm_alarms a where a.tenant_id = g.tenant_id and a.group_id in (select id from t)
      )
      select dev.n as devices, dev.online, dev.offline, case when dev.n > 0 then dev.online::float8 / dev.n end as online_rate,
        al.active as active_alarms, al.alarms from dev, al
    ) s`;
  const spec: ListSpec = {
    select: `g.id, g.name, g.type, g.location, p.name as "parentName", s.devices, s.online, s.offline,
      s.online_rate as "onlineRate", s.active_alarms as "activeAlarms", s.alarms`,
    from: `rm_groups g left join rm_groups p on p.id = g.parent_id cross join ${stats}`,
    where,
    params,
    sortable: siteSortBy,
    defaultSort: 'lower(g.name)',
  };
  return pageRows<SiteRecord>(db, page, spec);
}

// ---------------------------------------------------------------- home dashboard

/** Alarms of the tenant (in the groups) raised since, and the latest few, for the home dashboard. */
export async function alarmsSince(db: Sql, tenantId: string, since: string, groupIds?: string[]): Promise<number> {
  const params: unknown[] = [tenantId, since];
  const scope = groupIds ? `and group_id = any(${param(params, groupIds)})` : '';
  return (
    await db.query<{ n: number }>(
      `select count(*)::int as n from rm_alarms where tenant_id = $1 and raised_at >= $2::timestamptz ${scope}`,
      params,
    )
  ).rows[0]!.n;
}

export type RecentAlarm = {
  id: string;
  deviceId: string;
  deviceName: string | null;
  sn: string | null;
  ruleName: string | null;
  level: number;
  status: string;
  raisedAt: Date;
  clearedAt: Date | null;
};
/** The latest alarms raised (active or not) in the tenant, in the groups when given. */
export async function recentAlarms(db: Sql, tenantId: string, limit: number, groupIds?: string[]): Promise<RecentAlarm[]> {
  const params: unknown[] = [tenantId, limit];
  const scope = groupIds ? `and group_id = any(${param(params, groupIds)})` : '';
  return (
    await db.query<RecentAlarm>(
      `select id, device_id as "deviceId", device_name as "deviceName", sn, rule_name as "ruleName", level, status,
         raised_at as "raisedAt", cleared_at as "clearedAt"
       from rm_alarms where tenant_id = $1 ${scope} order by raised_at desc, id desc limit $2`,
      params,
    )
  ).rows;
}

/** The ids of the tenant's devices in the groups: what a station's telemetry count is narrowed to. */
export async function deviceIdsInGroups(db: Sql, tenantId: string, groupIds: string[]): Promise<string[]> {
  return (
    await db.query<{ id: string }>('select id from rm_devices where tenant_id = $1 and group_id = any($2)', [tenantId, groupIds])
  ).rows.map((r) => r.id);
}

// ---------------------------------------------------------------- data map

export interface MapFilter {
  /** Devices in these groups (the station's or a chosen group's subtree); none: the whole tenant. */
  groupIds?: string[];
  productId?: string;
  status?: 'online' | 'offline' | 'alarm';
}
export type MapPointRecord = {
  id: string;
  sn: string;
  name: string;
  productId: string;
  productName: string | null;
  groupId: string | null;
  groupName: string | null;
  status: 'online' | 'offline';
  enabled: boolean;
  lng: number;
  lat: number;
  address: string | null;
  lastReportAt: Date | null;
  activeAlarms: number;
  alarmLevel: number | null;
};

/**
 * The tenant's devices the filter lets through that have coordinates, each with its active alarms (count and highest
 * level), at most `limit`; and how many the filter lets through, with and without coordinates.
 */
export async function mapPoints(
  db: Sql,
  tenantId: string,
  filter: MapFilter,
  limit: number,
): Promise<{ points: MapPointRecord[]; total: number; unlocated: number }> {
  const params: unknown[] = [tenantId];
  const where = ['d.tenant_id = $1'];
  if (filter.groupIds) where.push(`d.group_id = any(${param(params, filter.groupIds)})`);
  if (filter.productId) where.push(`d.product_id = ${param(params, filter.productId)}`);
  if (filter.status === 'online' || filter.status === 'offline') where.push(`d.status = ${param(params, filter.status)}`);
  if (filter.status === 'alarm') where.push('al.active > 0');
  const from = `rm_devices d cross join lateral (
      select count(*)::int as active, max(a.level)::int as level from rm_alarms a
      where a.tenant_id = d.tenant_id and a.device_id = d.id and a.status = 'active') al
    where ${where.join(' and ')}`;
  const countParams = [...params];
  const [points, counts] = await Promise.all([
    db.query<MapPointRecord>(
      `select d.id, d.sn, d.name, d.product_id as "productId", (select name from rm_products p where p.id = d.product_id) as "productName",
         d.group_id as "groupId", (select name from rm_groups g where g.id = d.group_id) as "groupName", d.status, d.enabled,
         d.lng, d.lat, d.address, d.last_report_at as "lastReportAt", al.active as "activeAlarms", al.level as "alarmLevel"
       from ${from} and d.lng is not null and d.lat is not null
       order by al.level desc nulls last, d.id limit ${param(params, limit)}`,
      params,
    ),
    db.query<{ total: number; unlocated: number }>(
      `select count(*)::int as total, count(*) filter (where d.lng is null or d.lat is null)::int as unlocated from ${from}`,
      countParams,
    ),
  ]);
  return { points: points.rows, total: counts.rows[0]!.total, unlocated: counts.rows[0]!.unlocated };
}
