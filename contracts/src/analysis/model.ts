import { z } from 'zod';
import { entityId, instant, timeZone } from '../identity/common.ts';
import { pageQuery } from '../envelope.ts';

/**
 * The views of the alarm statistics (spec §2 data analysis): business (by the alarm's own group), regional
 * (by the groups one level below a root, drilled down by `groupId`), garage and project (by the nearest
 * group of that §9 type above the alarm's group) and national (by the top-level groups).
 */
export const faultViews = ['business', 'region', 'garage', 'project', 'national'] as const;
export type FaultView = (typeof faultViews)[number];

/** The longest range a statistic covers: a year and a day. */
export const MAX_STAT_RANGE_DAYS = 367;

const range = z
  .object({
    /** Alarms raised at or after. */
    from: instant,
    /** Alarms raised before; an alarm still active counts its duration up to here. */
    to: instant,
    /** The zone the days of the trend are cut in; Asia/Shanghai unless told. */
    timeZone: timeZone.optional(),
    /** The region to drill into (region view), or the one garage or project to look at; within the caller's station. */
    groupId: entityId.optional(),
    /** How many devices the ranking lists. */
    top: z.coerce.number().int().min(1).max(100).default(10),
  })
  .strict();
const checkRange = <T extends { from: string; to: string }>(q: T, ctx: z.RefinementCtx) => {
  const span = Date.parse(q.to) - Date.parse(q.from);
  if (!(span > 0) || span > MAX_STAT_RANGE_DAYS * 86_400_000) ctx.addIssue({ code: 'custom', path: ['to'], message: 'TIME_INVALID' });
};
export const faultStatsQuery = range.superRefine(checkRange);
export type FaultStatsQuery = z.output<typeof faultStatsQuery>;
export const faultExportQuery = range
  .extend({
    format: z.enum(['csv', 'xlsx']).default('csv'),
    /** Which table of the statistics the file holds. */
    table: z.enum(['groups', 'devices', 'products', 'levels', 'days']).default('groups'),
  })
  .superRefine(checkRange);

const seconds = z.number();
export const faultSummary = z.object({
  alarms: z.number().int(),
  active: z.number().int(),
  cleared: z.number().int(),
  devices: z.number().int(),
  /** Alarm time in seconds, each alarm from raised to cleared (or the end of the range). */
  durationSeconds: seconds,
  /** Mean time to clear of the cleared alarms; null when none was cleared. */
  meanClearSeconds: seconds.nullable(),
});
export const faultByLevel = z.object({ level: z.number().int(), alarms: z.number().int(), durationSeconds: seconds });
export const faultByDay = z.object({ day: z.string(), alarms: z.number().int(), cleared: z.number().int() });
export const faultByProduct = z.object({
  productId: z.string().nullable(),
  productName: z.string().nullable(),
  alarms: z.number().int(),
  devices: z.number().int(),
  durationSeconds: seconds,
});
/** A bucket of the view: a group (null: alarms of devices in no group, or directly in the drilled-down root). */
export const faultByGroup = z.object({
  groupId: z.string().nullable(),
  groupName: z.string().nullable(),
  groupType: z.string().nullable(),
  alarms: z.number().int(),
  active: z.number().int(),
  devices: z.number().int(),
  durationSeconds: seconds,
  meanClearSeconds: seconds.nullable(),
});
export const faultTopDevice = z.object({
  deviceId: z.string(),
  deviceName: z.string().nullable(),
  sn: z.string().nullable(),
  alarms: z.number().int(),
  active: z.number().int(),
  durationSeconds: seconds,
});
export const faultStats = z.object({
  view: z.enum(faultViews),
  summary: faultSummary,
  byLevel: z.array(faultByLevel),
  byDay: z.array(faultByDay),
  byProduct: z.array(faultByProduct),
  byGroup: z.array(faultByGroup),
  topDevices: z.array(faultTopDevice),
});
export type FaultStats = z.infer<typeof faultStats>;
export type FaultByGroup = z.infer<typeof faultByGroup>;

/** Group types of §9 that the project and garage screens list. */
export const siteKinds = ['project', 'garage'] as const;
export type SiteKind = (typeof siteKinds)[number];
export const siteSortable = ['name', 'devices', 'onlineRate', 'activeAlarms', 'alarms'] as const;
export const siteListQuery = pageQuery
  .extend({
    sort: z.enum(siteSortable).optional(),
    name: z.string().trim().max(64).optional(),
    /** The range the alarm count covers; the last 30 days unless told. */
    from: instant.optional(),
    to: instant.optional(),
  })
  .strict();
export const siteExportQuery = siteListQuery.extend({ format: z.enum(['csv', 'xlsx']).default('csv') });
export const siteRow = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  location: z.string().nullable(),
  parentName: z.string().nullable(),
  /** Devices in the group and every group below it. */
  devices: z.number().int(),
  online: z.number().int(),
  offline: z.number().int(),
  /** online / devices, from 0 to 1; null without devices. */
  onlineRate: z.number().nullable(),
  activeAlarms: z.number().int(),
  /** Alarms raised in the range. */
  alarms: z.number().int(),
});
export type SiteRow = z.infer<typeof siteRow>;

/** The home dashboard (issue 20), for the caller's group subtree. */
export const dashboard = z.object({
  devices: z.object({ total: z.number().int(), online: z.number().int(), offline: z.number().int(), disabled: z.number().int() }),
  alarms: z.object({
    active: z.number().int(),
    unprocessed: z.number().int(),
    byLevel: z.array(z.object({ level: z.number().int(), count: z.number().int() })),
    /** Raised since the start of today (the zone asked for). */
    today: z.number().int(),
  }),
  /** Samples stored since the start of today, and per second over the last minute. */
  dataPoints: z.object({ today: z.number().int(), perSecond: z.number() }),
  recentAlarms: z.array(
    z.object({
      id: z.string(),
      deviceId: z.string(),
      deviceName: z.string().nullable(),
      sn: z.string().nullable(),
      ruleName: z.string().nullable(),
      level: z.number().int(),
      status: z.string(),
      raisedAt: z.string(),
      clearedAt: z.string().nullable(),
    }),
  ),
  /** The tenant's latest changes, for a caller who may read the operation log; empty otherwise. */
  recentOperations: z.array(
    z.object({
      eventType: z.string(),
      stream: z.string(),
      targetName: z.string().nullable(),
      actorKind: z.string(),
      actorId: z.string(),
      occurredAt: z.string(),
    }),
  ),
  at: z.string(),
});
export type Dashboard = z.infer<typeof dashboard>;
export const dashboardQuery = z.object({ timeZone: timeZone.optional() }).strict();
