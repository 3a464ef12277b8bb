import {
  DomainError,
  isStationGroupType,
  periodMinutes,
  priceKinds,
  pricedUse,
  type EnergyStation,
  type EnergyStats,
  type EnergyStatsQuery,
  type EnergyUse,
  type PowerRoutes,
  type PriceScheduleRow,
} from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { metersInGroups } from '@iot/projections/device/read.ts';
import { groupById, groupsOf, groupSubtree, type GroupRecord } from '@iot/projections/group/read.ts';
import { priceScheduleOf, priceSchedulesOf, type PriceScheduleRecord } from '@iot/projections/power/read.ts';
import { localTime } from '@iot/projections/report/mail.ts';
import { stationScope } from '../analysis/handlers.ts';
import { tableFile } from '../analysis/export.ts';

const DEFAULT_ZONE = 'Asia/Shanghai';
/** Stations one answer covers at most (one time-series query each). */
const MAX_STATIONS = 100;

/** The station groups the caller sees: their station subtree's, or the whole tenant's. */
async function stationsInScope(ctx: RequestContext): Promise<GroupRecord[]> {
  const scope = await stationScope(ctx);
  const groups = await groupsOf(ctx.ports.db, callerOf(ctx).tenantId, scope ? { ids: scope } : {});
  return groups.filter((g) => isStationGroupType(g.type));
}

/** One station of the caller's scope: outside it (or no group of the tenant) NOT_FOUND, another type NOT_A_STATION. */
async function stationOf(ctx: RequestContext, stationId: string): Promise<GroupRecord> {
  const group = await groupById(ctx.ports.db, callerOf(ctx).tenantId, stationId);
  const scope = await stationScope(ctx);
  if (!group || (scope && !scope.includes(group.id))) throw new DomainError('NOT_FOUND', { field: 'groupId' });
  if (!isStationGroupType(group.type)) throw new DomainError('NOT_A_STATION', { field: 'groupId' });
  return group;
}

const rowOf = (r: PriceScheduleRecord, names: Map<string, string>): PriceScheduleRow => ({
  groupId: r.stationId,
  groupName: r.stationId === null ? null : (names.get(r.stationId) ?? null),
  currency: r.currency,
  prices: r.prices,
  periods: r.periods,
  updateTime: r.updatedAt.toISOString(),
});

const zeroUse = (priced: boolean): EnergyUse => ({ sharp: 0, peak: 0, flat: 0, valley: 0, unpriced: 0, kwh: 0, cost: priced ? 0 : null });
const kwhRound = (v: number) => Math.round(v * 1000) / 1000;
const costRound = (v: number) => Math.round(v * 100) / 100;
function addUse(into: EnergyUse, from: EnergyUse): void {
  for (const k of [...priceKinds, 'unpriced', 'kwh'] as const) into[k] = kwhRound(into[k] + from[k]);
  into.cost = into.cost === null || from.cost === null ? into.cost : costRound(into.cost + from.cost);
}

/**
 * A station's use per window, from the time-series store: the port folds the meters' 5-minute readings into kWh per
 * window and price period; each period's kWh is priced at its kind's price, to the cent.
 */
async function stationEnergy(
  ctx: RequestContext,
  q: EnergyStatsQuery & { timeZone: string },
  station: GroupRecord,
  schedules: Map<string | null, PriceScheduleRecord>,
): Promise<EnergyStation> {
  const tenantId = callerOf(ctx).tenantId;
  const own = schedules.get(station.id);
  const schedule = own ?? schedules.get(null) ?? null;
  const subtree = await groupSubtree(ctx.ports.db, tenantId, station.id);
  const meters = await metersInGroups(ctx.ports.db, tenantId, subtree, q.variable, q.productId);
  if (!ctx.ports.timeseries) throw new DomainError('INTERNAL');
  const points = await ctx.ports.timeseries.energyConsumption({
    tenantId,
    deviceIds: meters,
    variable: q.variable,
    from: new Date(q.from),
    to: new Date(q.to),
    window: q.cycle === 'month' ? '1M' : '1d',
    timeZone: q.timeZone,
    periods: schedule ? schedule.periods.map(periodMinutes) : [],
  });
  const windows = new Map<string, EnergyUse & { window: string }>();
  const total = zeroUse(schedule !== null);
  for (const point of points) {
    const day = localTime(point.windowStart.toISOString(), q.timeZone, '1d');
    const window = q.cycle === 'month' ? day.slice(0, 7) : day;
    let row = windows.get(window);
    if (!row) windows.set(window, (row = { window, ...zeroUse(schedule !== null) }));
    const priced = schedule ? pricedUse(schedule, point) : { kind: null, cost: null };
    const use = zeroUse(schedule !== null);
    use[priced.kind ?? 'unpriced'] = point.kwh;
    use.kwh = point.kwh;
    use.cost = schedule ? (priced.cost ?? 0) : null;
    addUse(row, use);
    addUse(total, use);
  }
  return {
    stationId: station.id,
    stationName: station.name,
    meters: meters.length,
    schedule: own ? 'station' : schedule ? 'default' : 'none',
    currency: schedule?.currency ?? null,
    windows: [...windows.values()].sort((a, b) => a.window.localeCompare(b.window)),
    total,
  };
}

/** The energy statistics of one station, or of every station the caller sees; totals priced when they share a currency. */
export async function energyStatsOf(ctx: RequestContext, query: EnergyStatsQuery): Promise<EnergyStats> {
  const q = { ...query, timeZone: query.timeZone ?? DEFAULT_ZONE };
  const stations = q.groupId ? [await stationOf(ctx, q.groupId)] : (await stationsInScope(ctx)).slice(0, MAX_STATIONS);
  const records = await priceSchedulesOf(
    ctx.ports.db,
    callerOf(ctx).tenantId,
    stations.map((s) => s.id),
  );
  const schedules = new Map(records.map((r) => [r.stationId, r]));
  const perStation: EnergyStation[] = [];
  // One station at a time: the embedded store serialises its queries anyway.
  for (const station of stations) perStation.push(await stationEnergy(ctx, q, station, schedules));
  const currencies = new Set(perStation.flatMap((s) => (s.currency ? [s.currency] : [])));
  const priced = currencies.size === 1;
  const windows = new Map<string, EnergyUse & { window: string }>();
  const total = zeroUse(priced);
  for (const station of perStation) {
    for (const w of station.windows) {
      let row = windows.get(w.window);
      if (!row) windows.set(w.window, (row = { window: w.window, ...zeroUse(priced) }));
      addUse(row, { ...w, cost: priced ? (w.cost ?? 0) : null });
    }
    addUse(total, { ...station.total, cost: priced ? (station.total.cost ?? 0) : null });
  }
  return {
    cycle: q.cycle,
    timeZone: q.timeZone,
    stations: perStation,
    windows: [...windows.values()].sort((a, b) => a.window.localeCompare(b.window)),
    total,
    currency: priced ? [...currencies][0]! : null,
  };
}

const exportColumns = ['stationName', 'window', 'sharp', 'peak', 'flat', 'valley', 'unpriced', 'kwh', 'cost', 'currency'] as const;

/** The power area's reads (issue 20): stations, price schedules and energy statistics, in the caller's station scope. */
export const powerQueryHandlers: Pick<
  Handlers<PowerRoutes>,
  'power.stations' | 'power.prices' | 'power.price' | 'power.statistics' | 'power.statisticsExport'
> = {
  async 'power.stations'(_input, ctx) {
    const stations = await stationsInScope(ctx);
    const own = new Set(
      (
        await priceSchedulesOf(
          ctx.ports.db,
          callerOf(ctx).tenantId,
          stations.map((s) => s.id),
        )
      ).map((r) => r.stationId),
    );
    return stations.map((s) => ({ id: s.id, name: s.name, type: s.type ?? '', parentId: s.parentId, ownSchedule: own.has(s.id) }));
  },

  async 'power.prices'(_input, ctx) {
    const stations = await stationsInScope(ctx);
    const names = new Map(stations.map((s) => [s.id, s.name]));
    const records = await priceSchedulesOf(ctx.ports.db, callerOf(ctx).tenantId, [...names.keys()]);
    return records.map((r) => rowOf(r, names));
  },

  async 'power.price'({ query }, ctx) {
    const station = query.groupId ? await stationOf(ctx, query.groupId) : null;
    const record = await priceScheduleOf(ctx.ports.db, callerOf(ctx).tenantId, station?.id ?? null);
    if (!record) throw new DomainError('NOT_FOUND', { field: 'groupId' });
    return rowOf(record, new Map(station ? [[station.id, station.name]] : []));
  },

  async 'power.statistics'({ query }, ctx) {
    return energyStatsOf(ctx, query);
  },

  async 'power.statisticsExport'({ query }, ctx) {
    const { format, ...q } = query;
    const stats = await energyStatsOf(ctx, q);
    const total = ctx.lang === 'zh' ? '合计' : 'Total';
    const rows = [
      ...stats.stations.flatMap((s) => s.windows.map((w) => ({ stationName: s.stationName, currency: s.currency, ...w }))),
      ...stats.windows.map((w) => ({ stationName: total, currency: stats.currency, ...w })),
      { stationName: total, window: total, currency: stats.currency, ...stats.total },
    ];
    return tableFile(format, `energy-${q.cycle}-${q.from.slice(0, 10)}`, exportColumns, rows, ctx.lang);
  },
};
