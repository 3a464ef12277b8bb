import { DomainError, MAP_POINT_LIMIT, type OperationRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { mapPoints } from '@iot/projections/analysis/read.ts';
import { groupSubtree } from '@iot/projections/group/read.ts';
import { dashboardOf, startOfDay, stationScope, statsOf } from '../analysis/handlers.ts';
import { latestValuesOf } from '../telemetry/handlers.ts';

const DAY_MS = 86_400_000;
const TREND_DAYS = 7;

/** The data map and the data big screen (issue 20): answers composed of the read modules the home dashboard uses. */
export const operationQueryHandlers: Handlers<OperationRoutes> = {
  async 'operation.dataMap'({ query: q }, ctx) {
    const { tenantId } = callerOf(ctx);
    let groupIds = await stationScope(ctx);
    if (q.groupId) {
      if (groupIds && !groupIds.includes(q.groupId)) throw new DomainError('NOT_FOUND');
      groupIds = await groupSubtree(ctx.ports.db, tenantId, q.groupId);
      if (groupIds.length === 0) throw new DomainError('NOT_FOUND');
    }
    const found = await mapPoints(ctx.ports.db, tenantId, { groupIds, productId: q.productId, status: q.status }, MAP_POINT_LIMIT + 1);
    return {
      points: found.points.slice(0, MAP_POINT_LIMIT).map((p) => ({ ...p, lastReportAt: p.lastReportAt?.toISOString() ?? null })),
      total: found.total,
      unlocated: found.unlocated,
      truncated: found.points.length > MAP_POINT_LIMIT,
    };
  },

  'operation.dataMapLatest': ({ query }, ctx) => latestValuesOf(ctx, query.id),

  async 'operation.bigScreen'({ query }, ctx) {
    const timeZone = query.timeZone ?? 'Asia/Shanghai';
    const now = new Date();
    const from = new Date(startOfDay(now, timeZone).getTime() - (TREND_DAYS - 1) * DAY_MS);
    const [dashboard, stats] = await Promise.all([
      dashboardOf(ctx, timeZone),
      statsOf(ctx, 'business', { from: from.toISOString(), to: now.toISOString(), timeZone, top: 10 }),
    ]);
    return { dashboard, trend: stats.byDay, byLevel: stats.byLevel, topDevices: stats.topDevices };
  },
};
