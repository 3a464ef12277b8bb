import { z } from 'zod';
import { route } from '../http/route.ts';
import { energyExportQuery, energyStats, energyStatsQuery, priceScheduleBody, priceScheduleQuery, priceScheduleRow } from './model.ts';
import { powerPerm as p } from './permissions.ts';

const tag = 'power';
const stationResult = z.object({ groupId: z.string().nullable() });
const stationRow = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  parentId: z.string().nullable(),
  /** Whether the station has a price schedule of its own (else the tenant's default prices it). */
  ownSchedule: z.boolean(),
});

/** The power area (spec §7 statistics, price, station; issue 20): price schedules and energy statistics per station. */
export const powerRoutes = {
  'power.stations': route({
    method: 'GET',
    path: '/api/power/station',
    permission: p.statistics,
    tag,
    summary: "The power stations (and sites) in the caller's group subtree, and whether each has its own price schedule",
    response: z.array(stationRow),
    reads: ['groups', 'priceSchedules'],
  }),
  'power.prices': route({
    method: 'GET',
    path: '/api/power/price/list',
    permission: p.statistics,
    tag,
    summary: "The tenant's default price schedule and the schedules of the stations in the caller's group subtree",
    response: z.array(priceScheduleRow),
    reads: ['groups', 'priceSchedules'],
  }),
  'power.price': route({
    method: 'GET',
    path: '/api/power/price',
    permission: p.statistics,
    tag,
    summary: "A station's price schedule, or the tenant's default when groupId is left out",
    query: priceScheduleQuery,
    response: priceScheduleRow,
    reads: ['groups', 'priceSchedules'],
    errors: ['NOT_FOUND'],
  }),
  'power.priceAdd': route({
    method: 'POST',
    path: '/api/power/price',
    permission: p.price,
    tag,
    summary: "Add a station's price schedule (groupId null: the tenant's default): periods cover the day once, prices ≥ 0",
    body: priceScheduleBody,
    response: stationResult,
    reads: ['priceSchedules'],
    errors: [
      'NOT_FOUND',
      'NOT_A_STATION',
      'PRICE_SCHEDULE_EXISTS',
      'PRICE_PERIODS_OVERLAP',
      'PRICE_PERIODS_GAP',
      'PRICE_MISSING',
      'FORBIDDEN',
    ],
  }),
  'power.priceEdit': route({
    method: 'PUT',
    path: '/api/power/price',
    permission: p.price,
    tag,
    summary: 'Change a price schedule whole: its currency, prices and periods',
    body: priceScheduleBody,
    response: stationResult,
    reads: ['priceSchedules'],
    errors: ['NOT_FOUND', 'NOT_A_STATION', 'PRICE_PERIODS_OVERLAP', 'PRICE_PERIODS_GAP', 'PRICE_MISSING', 'FORBIDDEN'],
  }),
  'power.priceDelete': route({
    method: 'DELETE',
    path: '/api/power/price',
    permission: p.price,
    tag,
    summary: "Delete a station's price schedule (the tenant's default then prices it), or the default when groupId is left out",
    query: priceScheduleQuery,
    response: stationResult,
    reads: ['priceSchedules'],
    errors: ['NOT_FOUND', 'FORBIDDEN'],
  }),
  'power.statistics': route({
    method: 'GET',
    path: '/api/power/statistics',
    permission: p.statistics,
    tag,
    summary:
      'Energy per station by day or month, split into sharp, peak, flat and valley periods and priced by the station’s schedule, computed in the time-series store',
    query: energyStatsQuery,
    response: energyStats,
    reads: ['groups', 'devices', 'priceSchedules'],
    errors: ['NOT_FOUND', 'NOT_A_STATION'],
  }),
  'power.statisticsExport': route({
    method: 'GET',
    path: '/api/power/statistics/export',
    permission: p.export,
    tag,
    summary: 'The energy statistics as CSV or XLSX (format=xlsx): one row per station and window, then the totals',
    query: energyExportQuery,
    produces: 'text/csv',
    response: z.string().describe('CSV (UTF-8 with a byte order mark) or XLSX'),
    reads: ['groups', 'devices', 'priceSchedules'],
    errors: ['NOT_FOUND', 'NOT_A_STATION'],
  }),
};
export type PowerRoutes = typeof powerRoutes;
