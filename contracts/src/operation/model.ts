import { z } from 'zod';
import { dashboard, faultByDay, faultByLevel, faultTopDevice } from '../analysis/model.ts';
import { deviceStatuses } from '../device/model.ts';
import { entityId, timeZone } from '../identity/common.ts';

// ---------------------------------------------------------------- data map
/** What the map shows: online or offline devices, or those with an active alarm. */
export const mapStatuses = [...deviceStatuses, 'alarm'] as const;
export const dataMapQuery = z
  .object({
    productId: entityId.optional(),
    /** The group and every group below it, within the caller's station. */
    groupId: entityId.optional(),
    status: z.enum(mapStatuses).optional(),
  })
  .strict();
export type DataMapQuery = z.output<typeof dataMapQuery>;
export const mapPoint = z.object({
  id: z.string(),
  sn: z.string(),
  name: z.string(),
  productId: z.string(),
  productName: z.string().nullable(),
  groupId: z.string().nullable(),
  groupName: z.string().nullable(),
  status: z.enum(deviceStatuses),
  enabled: z.boolean(),
  lng: z.number(),
  lat: z.number(),
  address: z.string().nullable(),
  lastReportAt: z.string().nullable(),
  activeAlarms: z.number().int(),
  /** The highest level of its active alarms; null when none is active. */
  alarmLevel: z.number().int().nullable(),
});
export type MapPoint = z.infer<typeof mapPoint>;
/** The most points one answer carries: beyond, the screen says the map is cut and asks for a filter. */
export const MAP_POINT_LIMIT = 5000;
export const dataMap = z.object({
  points: z.array(mapPoint),
  /** Devices the filter lets through, with or without coordinates. */
  total: z.number().int(),
  /** Of those, the ones without coordinates (not on the map). */
  unlocated: z.number().int(),
  truncated: z.boolean(),
});
export type DataMap = z.infer<typeof dataMap>;

// ---------------------------------------------------------------- data big screen
export const bigScreenQuery = z.object({ timeZone: timeZone.optional() }).strict();
/** The home dashboard's figures with the last 7 days' alarm trend, levels and top devices (the business statistics). */
export const bigScreen = z.object({
  dashboard,
  trend: z.array(faultByDay),
  byLevel: z.array(faultByLevel),
  topDevices: z.array(faultTopDevice),
});
export type BigScreen = z.infer<typeof bigScreen>;
export const deviceIdQuery = z.object({ id: entityId }).strict();
