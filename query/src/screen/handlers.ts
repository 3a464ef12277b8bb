import { createHash, timingSafeEqual } from 'node:crypto';
import {
  DomainError,
  SCREEN_HISTORY_POINTS,
  SCREEN_MAP_POINTS,
  SCREEN_RECENT_MS,
  historyWidgetKinds,
  type ScreenData,
  type ScreenRoutes,
  type ScreenRow,
  type ScreenShareRow,
  type ScreenWidget,
  type ScreenWidgetData,
  type StatDimension,
} from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { activeAlarmCounts, alarmsPage } from '@iot/projections/alarm/read.ts';
import { deviceById, devicesOfTenant } from '@iot/projections/device/read.ts';
import {
  screenById,
  screensPage,
  shareById,
  sharesOfScreen,
  type ScreenRecord,
  type ScreenShareRecord,
} from '@iot/projections/screen/read.ts';
import { mapPoints } from '@iot/projections/analysis/read.ts';
import { groupNames, groupSubtree } from '@iot/projections/group/read.ts';
import { statTaskById } from '@iot/projections/stat/read.ts';
import { stationScope } from '../analysis/handlers.ts';
import { latestValuesOf, telemetryQueryHandlers } from '../telemetry/handlers.ts';

/** The statistic windows a widget shows at most, and how far back they are looked for. */
const STAT_POINTS = 48;
const STAT_LOOKBACK_MS = 35 * 86_400_000;
const ALARM_ROWS = 20;

const toRow = (s: ScreenRecord): ScreenRow => ({
  id: s.id,
  name: s.name,
  widgets: s.widgets,
  createTime: s.createdAt.toISOString(),
  updateTime: s.updatedAt.toISOString(),
});

async function screenOf(ctx: RequestContext, id: string): Promise<ScreenRecord> {
  const screen = await screenById(ctx.ports.db, callerOf(ctx).tenantId, id);
  if (!screen) throw new DomainError('NOT_FOUND');
  return screen;
}

// ---------------------------------------------------------------- share tokens: `<shareId>.<secret>`

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** The share link a token is for, once its secret, revocation and expiry are checked. */
async function shareOfToken(ctx: RequestContext, token: string): Promise<ScreenShareRecord> {
  const dot = token.indexOf('.');
  const [shareId, secret] = dot > 0 ? [token.slice(0, dot), token.slice(dot + 1)] : ['', ''];
  if (!shareId || !secret || shareId.length > 64) throw new DomainError('SCREEN_LINK_INVALID');
  // A share id is no secret (a UUID in the link): only the secret is compared in constant time.
  const share = await shareById(ctx.ports.db, shareId);
  if (!share) throw new DomainError('SCREEN_LINK_INVALID');
  const expected = Buffer.from(share.tokenHash, 'hex');
  const given = sha256(secret);
  if (expected.length !== given.length || !timingSafeEqual(given, expected)) throw new DomainError('SCREEN_LINK_INVALID');
  if (share.revokedAt) throw new DomainError('SCREEN_LINK_INVALID');
  if (share.expiresAt.getTime() <= Date.now()) throw new DomainError('SCREEN_LINK_EXPIRED');
  return share;
}

// ---------------------------------------------------------------- what the widgets show

/**
 * A map widget's devices with coordinates: of its group's subtree (within the caller's station; outside it, none) and
 * its product, coloured on the page by status and the highest active alarm.
 */
async function mapOf(
  ctx: RequestContext,
  binding: { groupId: string | null; productId: string | null },
  station: string[] | undefined,
): Promise<ScreenWidgetData> {
  const { tenantId } = callerOf(ctx);
  let groupIds = station;
  if (binding.groupId) {
    const subtree = await groupSubtree(ctx.ports.db, tenantId, binding.groupId);
    groupIds = station ? subtree.filter((g) => station.includes(g)) : subtree;
  }
  const found = await mapPoints(
    ctx.ports.db,
    tenantId,
    { ...(groupIds ? { groupIds } : {}), ...(binding.productId ? { productId: binding.productId } : {}) },
    SCREEN_MAP_POINTS,
  );
  return {
    source: 'map',
    points: found.points.map((p) => ({
      id: p.id,
      name: p.name,
      sn: p.sn,
      lng: p.lng,
      lat: p.lat,
      online: p.status === 'online',
      alarmLevel: p.alarmLevel,
    })),
    total: found.total,
    unlocated: found.unlocated,
  };
}

/**
 * Which of a statistic's keys a caller narrowed to a station may see: its devices and groups; a product's or the
 * tenant's figures sum devices outside it, so none of them. Without a station, every key.
 */
async function statKeysInScope(
  ctx: RequestContext,
  dimension: StatDimension,
  points: ReadonlyArray<{ key: string }>,
  groupIds: string[] | undefined,
): Promise<(key: string) => boolean> {
  if (!groupIds) return () => true;
  if (dimension === 'group') return (key) => groupIds.includes(key);
  if (dimension !== 'device') return () => false;
  const keys = [...new Set(points.map((p) => p.key))];
  const seen = new Set(await devicesOfTenant(ctx.ports.db, callerOf(ctx).tenantId, keys, groupIds));
  return (key) => seen.has(key);
}

/** A device's newest values, or none when it is gone or outside the caller's station (its widgets then show no value). */
async function valuesOfDevice(ctx: RequestContext, deviceId: string) {
  try {
    return await latestValuesOf(ctx, deviceId);
  } catch (e) {
    if (e instanceof DomainError && e.code === 'NOT_FOUND') return [];
    throw e;
  }
}

/** What each bound widget of a screen shows now, in the caller's scope (a shared link's: its sharer's station). */
async function dataOf(ctx: RequestContext, widgets: ScreenWidget[]): Promise<ScreenData> {
  const { tenantId } = callerOf(ctx);
  const { db } = ctx.ports;
  const groupIds = await stationScope(ctx);
  const out: Record<string, ScreenWidgetData> = {};
  const devices = new Map<
    string,
    Promise<{ name: string | null; online: boolean | null; values: Awaited<ReturnType<typeof valuesOfDevice>> }>
  >();
  const deviceOf = (id: string) => {
    let found = devices.get(id);
    if (!found) {
      found = (async () => {
        const values = await valuesOfDevice(ctx, id);
        const device = values.length > 0 || !groupIds ? await deviceById(db, tenantId, id) : null;
        return { name: device?.name ?? null, online: device ? device.status === 'online' : null, values };
      })();
      devices.set(id, found);
    }
    return found;
  };
  let counts: Promise<Array<{ level: number; count: number }>> | null = null;
  await Promise.all(
    widgets.map(async (w) => {
      const b = w.binding;
      if (b.source === 'device') {
        const d = await deviceOf(b.deviceId);
        const v = d.values.find((x) => x.variable === b.variable);
        out[w.id] = {
          source: 'device',
          deviceName: d.name,
          online: d.online,
          unit: v?.unit ?? null,
          value: v?.value ?? null,
          display: v?.display ?? null,
          ts: v?.ts ?? null,
        };
      } else if (b.source === 'stat') {
        const task = await statTaskById(db, tenantId, b.statTaskId);
        if (!task || !ctx.ports.timeseries) return;
        const now = new Date();
        const points = await ctx.ports.timeseries.statResults({
          tenantId,
          taskId: task.id,
          from: new Date(now.getTime() - STAT_LOOKBACK_MS),
          to: now,
          limit: 10_000,
        });
        const inScope = await statKeysInScope(ctx, task.dimension, points, groupIds);
        out[w.id] = {
          source: 'stat',
          name: task.name,
          points: points
            .filter((p) => inScope(p.key))
            .slice(-STAT_POINTS)
            .map((p) => ({ windowStart: p.windowStart.toISOString(), key: p.key, value: p.value })),
        };
      } else if (b.source === 'map') {
        out[w.id] = await mapOf(ctx, b, groupIds);
      } else if (b.source === 'alarm') {
        counts ??= activeAlarmCounts(db, tenantId, groupIds);
        const page = await alarmsPage(
          db,
          tenantId,
          { status: b.status ?? 'active', ...(b.level ? { level: b.level } : {}), ...(groupIds ? { groupIds } : {}) },
          { page: 1, pageSize: ALARM_ROWS, order: 'desc' },
        );
        out[w.id] = {
          source: 'alarm',
          byLevel: (await counts).map(({ level, count }) => ({ level, count })),
          rows: page.rows.map((a) => ({
            id: a.id,
            level: a.level,
            device: a.deviceName ?? a.sn ?? a.deviceId,
            variable: a.variable ?? null,
            status: a.status,
            raisedAt: a.raisedAt.toISOString(),
          })),
        };
      }
    }),
  );
  return { at: new Date().toISOString(), widgets: out };
}

/**
 * The recent values of a screen's device charts, as the telemetry history route answers them to the caller (a device
 * gone or outside the caller's station has none): what a page that cannot call that route (a shared link) starts from.
 */
async function recentOf(ctx: RequestContext, widgets: ScreenWidget[]): Promise<Record<string, Array<[string, number]>>> {
  const to = new Date(Date.now() + 60_000);
  const from = new Date(to.getTime() - SCREEN_RECENT_MS);
  const out: Record<string, Array<[string, number]>> = {};
  for (const w of widgets) {
    const b = w.binding;
    if (b.source !== 'device' || !historyWidgetKinds.includes(w.kind)) continue;
    const query = {
      id: b.deviceId,
      variables: [b.variable],
      from: from.toISOString(),
      to: to.toISOString(),
      bucket: 'raw' as const,
      fn: 'avg' as const,
      page: 1,
      pageSize: 1000,
      timeZone: 'UTC',
    };
    const answer = await telemetryQueryHandlers['telemetry.history']({ body: undefined, query }, ctx).catch((e: unknown) => {
      if (e instanceof DomainError && e.code === 'NOT_FOUND') return [];
      throw e;
    });
    const series = Array.isArray(answer) ? answer : [];
    out[w.id] = (series[0]?.points ?? [])
      .flatMap((p) => (p.value === null ? [] : [[p.ts, p.value] as [string, number]]))
      .slice(-SCREEN_HISTORY_POINTS);
  }
  return out;
}

/**
 * The context a shared link's answer is computed in: the screen's tenant as a caller without any permission, narrowed
 * to the station its sharer was narrowed to, so a link never shows more than its sharer saw.
 */
const shareContext = (ctx: RequestContext, share: ScreenShareRecord): RequestContext => ({
  ...ctx,
  stationId: share.stationId,
  caller: {
    kind: 'user',
    id: `share:${share.id}`,
    tenantId: share.tenantId,
    username: 'share',
    isSystemAdmin: false,
    permissions: new Set(),
    stationId: share.stationId,
    tokenHash: '',
  },
});

const shareRow = (s: ScreenShareRecord, now: number, stations: Map<string, string>): ScreenShareRow => ({
  id: s.id,
  expiresAt: s.expiresAt.toISOString(),
  revoked: s.revokedAt !== null,
  expired: s.expiresAt.getTime() <= now,
  createTime: s.createdAt.toISOString(),
  stationId: s.stationId,
  stationName: s.stationId === null ? null : (stations.get(s.stationId) ?? null),
});

/** Big screens, what their widgets show, their share links and a shared screen (issue 20). */
export const screenQueryHandlers: Pick<
  Handlers<ScreenRoutes>,
  'screen.list' | 'screen.detail' | 'screen.data' | 'screen.shares' | 'screen.shared'
> = {
  async 'screen.list'({ query: q }, ctx) {
    const found = await screensPage(ctx.ports.db, callerOf(ctx).tenantId, { name: q.name }, q);
    return { ...found, rows: found.rows.map(toRow) };
  },

  async 'screen.detail'({ query }, ctx) {
    return toRow(await screenOf(ctx, query.id));
  },

  async 'screen.data'({ query }, ctx) {
    return dataOf(ctx, (await screenOf(ctx, query.id)).widgets);
  },

  async 'screen.shares'({ query }, ctx) {
    const screen = await screenOf(ctx, query.id);
    const now = Date.now();
    const shares = await sharesOfScreen(ctx.ports.db, screen.tenantId, screen.id);
    const stations = await groupNames(ctx.ports.db, screen.tenantId, [
      ...new Set(shares.flatMap((s) => (s.stationId ? [s.stationId] : []))),
    ]);
    return shares.map((s) => shareRow(s, now, stations));
  },

  async 'screen.shared'({ query }, ctx) {
    const share = await shareOfToken(ctx, query.token);
    const screen = await screenById(ctx.ports.db, share.tenantId, share.screenId);
    if (!screen) throw new DomainError('SCREEN_LINK_INVALID');
    const as = shareContext(ctx, share);
    return {
      screen: toRow(screen),
      data: await dataOf(as, screen.widgets),
      expiresAt: share.expiresAt.toISOString(),
      ...(query.recent ? { recent: await recentOf(as, screen.widgets) } : {}),
    };
  },
};
