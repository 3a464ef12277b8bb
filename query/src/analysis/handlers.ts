import { DomainError, type AnalysisRoutes, type Dashboard, type FaultStats, type FaultView, type SiteKind } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { hasPermission } from '@iot/contracts/http/principal.ts';
import { perm } from '@iot/contracts/identity/permissions.ts';
import type { z } from 'zod';
import { activeAlarmCounts } from '@iot/projections/alarm/read.ts';
import { alarmsSince, deviceIdsInGroups, faultStats, recentAlarms, sitesPage } from '@iot/projections/analysis/read.ts';
import { deviceCounts } from '@iot/projections/device/read.ts';
import { groupSubtree } from '@iot/projections/group/read.ts';
import { recentOperations } from '@iot/projections/oplog/read.ts';
import { ttlCache } from '../shared/ttl-cache.ts';
import { tableFile } from './export.ts';

type StatsQuery = z.output<AnalysisRoutes['analysis.business']['query']>;
type ExportQuery = z.output<AnalysisRoutes['analysis.businessExport']['query']>;
type SiteQuery = z.output<AnalysisRoutes['analysis.projects']['query']>;
type SiteExportQuery = z.output<AnalysisRoutes['analysis.projectsExport']['query']>;

const DEFAULT_ZONE = 'Asia/Shanghai';
const DAY_MS = 86_400_000;

/** The caller's station subtree (spec §6 stationId); none: the whole tenant. */
export async function stationScope(ctx: RequestContext): Promise<string[] | undefined> {
  const caller = callerOf(ctx);
  return caller.stationId ? groupSubtree(ctx.ports.db, caller.tenantId, caller.stationId) : undefined;
}

/** The statistics of a view in the caller's scope; a `groupId` outside the station (or no group of the tenant) is NOT_FOUND. */
export async function statsOf(ctx: RequestContext, view: FaultView, q: StatsQuery): Promise<FaultStats> {
  const caller = callerOf(ctx);
  const station = await stationScope(ctx);
  let groupIds = station;
  let root = caller.stationId;
  if (q.groupId) {
    if (station && !station.includes(q.groupId)) throw new DomainError('NOT_FOUND');
    groupIds = await groupSubtree(ctx.ports.db, caller.tenantId, q.groupId);
    if (groupIds.length === 0) throw new DomainError('NOT_FOUND');
    // The region view drills into the group; the others look at its subtree, bucketed as the view says.
    if (view === 'region') root = q.groupId;
  }
  const stats = await faultStats(
    ctx.ports.db,
    { tenantId: caller.tenantId, view, from: q.from, to: q.to, groupIds, root, timeZone: q.timeZone ?? DEFAULT_ZONE },
    q.top,
  );
  return { view, ...stats };
}

const exportColumns = {
  groups: ['groupName', 'groupType', 'alarms', 'active', 'devices', 'durationSeconds', 'meanClearSeconds'],
  devices: ['deviceName', 'sn', 'alarms', 'active', 'durationSeconds'],
  products: ['productName', 'alarms', 'devices', 'durationSeconds'],
  levels: ['level', 'alarms', 'durationSeconds'],
  days: ['day', 'alarms', 'cleared'],
} as const;

async function exportOf(ctx: RequestContext, view: FaultView, q: ExportQuery) {
  const stats = await statsOf(ctx, view, { ...q, top: q.table === 'devices' ? 100 : q.top });
  const rows = { groups: stats.byGroup, devices: stats.topDevices, products: stats.byProduct, levels: stats.byLevel, days: stats.byDay }[
    q.table
  ];
  return tableFile(q.format, `${view}-${q.table}-${q.from.slice(0, 10)}`, exportColumns[q.table], rows, ctx.lang);
}

/** The list's filters in the caller's scope: the alarm count over the last 30 days unless told. */
async function siteFilter(ctx: RequestContext, kind: SiteKind, q: SiteQuery) {
  const to = q.to ?? new Date().toISOString();
  const from = q.from ?? new Date(Date.parse(to) - 30 * DAY_MS).toISOString();
  return { kind, ids: await stationScope(ctx), name: q.name, from, to };
}
async function sitesOf(ctx: RequestContext, kind: SiteKind, q: SiteQuery) {
  return sitesPage(ctx.ports.db, callerOf(ctx).tenantId, await siteFilter(ctx, kind, q), q);
}
const siteColumns = ['name', 'parentName', 'location', 'devices', 'online', 'offline', 'onlineRate', 'activeAlarms', 'alarms'] as const;
const SITE_EXPORT_LIMIT = 500;
async function siteExport(ctx: RequestContext, kind: SiteKind, q: SiteExportQuery) {
  const page = await sitesOf(ctx, kind, { ...q, page: 1, pageSize: SITE_EXPORT_LIMIT });
  return tableFile(q.format, `${kind}s-${new Date().toISOString().slice(0, 10)}`, siteColumns, page.rows, ctx.lang);
}

/** Midnight of today in the zone, as an instant. */
export function startOfDay(now: Date, timeZone: string): Date {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(now)
      .map((p) => [p.type, p.value]),
  );
  const wallNow = Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!);
  const offset = wallNow - Math.floor(now.getTime() / 1000) * 1000;
  return new Date(Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!) - offset);
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

/**
 * A station's count of today's samples (its devices' ids asked of the raw table) kept for a few seconds per tenant and
 * station: a page refreshes every 15 s and on every alarm change, and many operators watch it. The tenant's whole
 * count, and every other figure, is read from counters kept as the rows are written, and needs no cache.
 */
const STATION_SAMPLES_MS = 5_000;
const stationSampleCache = ttlCache<{ since: number; recent: number }>(STATION_SAMPLES_MS);

type AnalysisReads = keyof AnalysisRoutes;

/** The home dashboard for the caller's group subtree, today cut in the zone (Asia/Shanghai unless told). */
export async function dashboardOf(ctx: RequestContext, timeZone: string | undefined): Promise<Dashboard> {
  const caller = callerOf(ctx);
  const { db, timeseries } = ctx.ports;
  const now = new Date();
  const today = startOfDay(now, timeZone ?? DEFAULT_ZONE);
  const groupIds = await stationScope(ctx);
  const counted = { tenantId: caller.tenantId, since: today, recentSince: new Date(now.getTime() - 60_000) };
  const samples = () =>
    !timeseries
      ? Promise.resolve({ since: 0, recent: 0 })
      : groupIds
        ? stationSampleCache(`${caller.tenantId}\u0000${caller.stationId}\u0000${today.getTime()}`, async () =>
            timeseries.countSamples({ ...counted, deviceIds: await deviceIdsInGroups(db, caller.tenantId, groupIds) }),
          )
        : timeseries.countSamples(counted);
  const operations = () => (hasPermission(caller, perm.logList) ? recentOperations(db, caller.tenantId, 8) : Promise.resolve([]));
  const [devices, levels, todayAlarms, recent, points, ops] = await Promise.all([
    deviceCounts(db, caller.tenantId, { stationId: caller.stationId }),
    activeAlarmCounts(db, caller.tenantId, groupIds),
    alarmsSince(db, caller.tenantId, today.toISOString(), groupIds),
    recentAlarms(db, caller.tenantId, 8, groupIds),
    samples(),
    operations(),
  ]);
  return {
    devices,
    alarms: {
      active: levels.reduce((n, l) => n + l.count, 0),
      unprocessed: levels.reduce((n, l) => n + l.unprocessed, 0),
      byLevel: [1, 2, 3, 4, 5].map((level) => ({ level, count: levels.find((l) => l.level === level)?.count ?? 0 })),
      today: todayAlarms,
    },
    dataPoints: { today: points.since, perSecond: Math.round((points.recent / 60) * 100) / 100 },
    recentAlarms: recent.map((a) => ({ ...a, raisedAt: a.raisedAt.toISOString(), clearedAt: iso(a.clearedAt) })),
    recentOperations: ops.map((o) => ({
      eventType: o.eventType,
      stream: o.stream,
      targetName: o.targetName,
      actorKind: o.actorKind,
      actorId: o.actorId,
      occurredAt: o.occurredAt.toISOString(),
    })),
    at: now.toISOString(),
  };
}

/** Business and fault statistics, projects and garages, and the home dashboard (issue 20). */
export const analysisQueryHandlers: Handlers<Pick<AnalysisRoutes, AnalysisReads>> = {
  'analysis.business': ({ query }, ctx) => statsOf(ctx, 'business', query),
  'analysis.regionFault': ({ query }, ctx) => statsOf(ctx, 'region', query),
  'analysis.garageFault': ({ query }, ctx) => statsOf(ctx, 'garage', query),
  'analysis.projectFault': ({ query }, ctx) => statsOf(ctx, 'project', query),
  'analysis.nationalFault': ({ query }, ctx) => statsOf(ctx, 'national', query),
  'analysis.businessExport': ({ query }, ctx) => exportOf(ctx, 'business', query),
  'analysis.regionFaultExport': ({ query }, ctx) => exportOf(ctx, 'region', query),
  'analysis.garageFaultExport': ({ query }, ctx) => exportOf(ctx, 'garage', query),
  'analysis.projectFaultExport': ({ query }, ctx) => exportOf(ctx, 'project', query),
  'analysis.nationalFaultExport': ({ query }, ctx) => exportOf(ctx, 'national', query),
  'analysis.projects': ({ query }, ctx) => sitesOf(ctx, 'project', query),
  'analysis.garages': ({ query }, ctx) => sitesOf(ctx, 'garage', query),
  'analysis.projectsExport': ({ query }, ctx) => siteExport(ctx, 'project', query),
  'analysis.garagesExport': ({ query }, ctx) => siteExport(ctx, 'garage', query),

  'analysis.dashboard': ({ query }, ctx) => dashboardOf(ctx, query.timeZone),
};
