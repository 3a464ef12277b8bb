import { z } from 'zod';
import { identifier } from '../device/thing-model.ts';
import { BROWSER_URL_MARK } from '../http/outbound-url.ts';
import { entityId } from '../identity/common.ts';

/**
 * A data big screen (数据大屏, spec §2 operation center, issue 20): widgets placed on a 24-column grid of a
 * 1920×1080 screen, each bound to a device variable, a statistic task or an alarm query.
 */
export const screenWidgetKinds = [
  'number',
  'gauge',
  'line',
  'bar',
  'pie',
  'table',
  'map',
  'alarmList',
  'deviceStatus',
  'text',
  'image',
  'clock',
  'progress',
  'radar',
  'scatter',
  'heatmap',
  'liquid',
  'switch',
  'video',
] as const;
export type ScreenWidgetKind = (typeof screenWidgetKinds)[number];
/** Kinds that chart a device variable's recent values (the others show its newest value only). */
export const historyWidgetKinds: readonly ScreenWidgetKind[] = ['line', 'bar', 'scatter', 'radar', 'heatmap'];
/** How far back a chart's device values are loaded when a screen opens, and how many a chart keeps. */
export const SCREEN_RECENT_MS = 30 * 60_000;
export const SCREEN_HISTORY_POINTS = 60;
/** Kinds that show no data: they take no binding. */
export const unboundWidgetKinds: readonly ScreenWidgetKind[] = ['text', 'image', 'clock', 'video'];
export const SCREEN_COLUMNS = 24;
/** Rows of the grid: 1080 px in rows of 40 px. */
export const SCREEN_ROWS = 27;
export const SCREEN_WIDTH = 1920;
export const SCREEN_HEIGHT = 1080;
export const SCREEN_WIDGET_LIMIT = 60;
/** Share links of one screen that can be live at once. */
export const SCREEN_SHARE_LIMIT = 20;
/** The longest a share link lives: a year, in hours. */
export const SCREEN_SHARE_MAX_HOURS = 8_760;

export const screenBinding = z.discriminatedUnion('source', [
  z.object({ source: z.literal('device'), deviceId: entityId, variable: identifier }).strict(),
  z.object({ source: z.literal('stat'), statTaskId: entityId }).strict(),
  z
    .object({
      source: z.literal('alarm'),
      level: z
        .number()
        .int()
        .min(1)
        .max(5)
        .nullish()
        .transform((v) => v ?? null),
      status: z
        .enum(['active', 'cleared'])
        .nullish()
        .transform((v) => v ?? null),
    })
    .strict(),
  /** A map's devices (those with coordinates): of a group's subtree and of a product, each optional. */
  z
    .object({
      source: z.literal('map'),
      groupId: entityId.nullish().transform((v) => v ?? null),
      productId: entityId.nullish().transform((v) => v ?? null),
    })
    .strict(),
  z.object({ source: z.literal('none') }).strict(),
]);
export type ScreenBinding = z.output<typeof screenBinding>;

/** A widget's display options: colours, range, unit, text, an image or video address. */
export const screenWidgetOptions = z
  .object({
    min: z.number().finite().optional(),
    max: z.number().finite().optional(),
    unit: z.string().trim().max(16).optional(),
    text: z.string().max(2_000).optional(),
    // Only the browser opens it (an image, a video slot): the platform never calls it, so the outbound guard has nothing to guard.
    url: z
      .string()
      .trim()
      .max(1_000)
      .regex(/^(https?:\/\/|\/)/, 'an http(s) or same-site address')
      .meta({ [BROWSER_URL_MARK]: ['http:', 'https:'] })
      .optional(),
    color: z
      .string()
      .regex(/^#[0-9A-Fa-f]{6}$/)
      .optional(),
    decimals: z.number().int().min(0).max(6).optional(),
  })
  .strict();

const cell = (max: number) => z.number().int().min(0).max(max);
export const screenWidget = z
  .object({
    /** The widget's id in the screen (the designer makes it). */
    id: z.string().trim().min(1).max(40),
    kind: z.enum(screenWidgetKinds),
    x: cell(SCREEN_COLUMNS - 1),
    y: cell(SCREEN_ROWS - 1),
    w: z.number().int().min(1).max(SCREEN_COLUMNS),
    h: z.number().int().min(1).max(SCREEN_ROWS),
    title: z.string().trim().max(64).default(''),
    binding: screenBinding.default({ source: 'none' }),
    options: screenWidgetOptions.default({}),
  })
  .strict()
  .refine((w) => w.x + w.w <= SCREEN_COLUMNS, { message: 'inside the 24 columns', path: ['w'] })
  .refine((w) => w.y + w.h <= SCREEN_ROWS, { message: 'inside the screen', path: ['h'] })
  .refine((w) => w.options.min === undefined || w.options.max === undefined || w.options.min < w.options.max, {
    message: 'minimum below maximum',
    path: ['options', 'max'],
  })
  .refine((w) => !unboundWidgetKinds.includes(w.kind) || w.binding.source === 'none', {
    message: 'this kind shows no data',
    path: ['binding'],
  })
  .refine((w) => w.binding.source !== 'map' || w.kind === 'map', { message: 'only a map shows devices on a map', path: ['binding'] });
export type ScreenWidget = z.output<typeof screenWidget>;

export const screenWidgets = z
  .array(screenWidget)
  .max(SCREEN_WIDGET_LIMIT)
  .refine((ws) => new Set(ws.map((w) => w.id)).size === ws.length, 'widget ids are unique');
const screenName = z.string().trim().min(1).max(64);

export const screenCreateBody = z.object({ name: screenName, widgets: screenWidgets.default([]) }).strict();
export const screenRenameBody = z.object({ id: entityId, name: screenName }).strict();
export const screenSaveBody = z.object({ id: entityId, widgets: screenWidgets }).strict();
export const screenShareBody = z.object({ id: entityId, hours: z.number().int().min(1).max(SCREEN_SHARE_MAX_HOURS) }).strict();
export const screenShareQuery = z.object({ id: entityId, shareId: entityId }).strict();
export const screenTokenQuery = z
  .object({
    token: z.string().min(1).max(1_000),
    /** `true`: also the recent values of the device charts (once, when the page opens). */
    recent: z
      .enum(['true', 'false'])
      .optional()
      .transform((v) => v === 'true'),
  })
  .strict();

const widgetRow = z.object({
  id: z.string(),
  kind: z.enum(screenWidgetKinds),
  x: z.number(),
  y: z.number(),
  w: z.number(),
  h: z.number(),
  title: z.string(),
  binding: z.union([
    z.object({ source: z.literal('device'), deviceId: z.string(), variable: z.string() }),
    z.object({ source: z.literal('stat'), statTaskId: z.string() }),
    z.object({ source: z.literal('alarm'), level: z.number().nullable(), status: z.enum(['active', 'cleared']).nullable() }),
    z.object({ source: z.literal('map'), groupId: z.string().nullable(), productId: z.string().nullable() }),
    z.object({ source: z.literal('none') }),
  ]),
  options: z.record(z.string(), z.unknown()),
});
export const screenRow = z.object({
  id: z.string(),
  name: z.string(),
  widgets: z.array(widgetRow),
  createTime: z.string(),
  updateTime: z.string(),
});
export type ScreenRow = z.infer<typeof screenRow>;
export const screenSortable = ['createTime', 'updateTime', 'name'] as const;
export const screenFilters = { name: z.string().trim().max(64).optional() };

/** A share link of a screen and when it stops working (its token is shown once, when it is made). */
export const screenShareRow = z.object({
  id: z.string(),
  expiresAt: z.string(),
  revoked: z.boolean(),
  expired: z.boolean(),
  createTime: z.string(),
  /** The station the link is narrowed to (its sharer's), null for the whole tenant; its name, null once it is deleted. */
  stationId: z.string().nullable(),
  stationName: z.string().nullable(),
});
export type ScreenShareRow = z.infer<typeof screenShareRow>;

/** What one widget shows now. */
export const screenWidgetData = z.union([
  z.object({
    source: z.literal('device'),
    deviceName: z.string().nullable(),
    online: z.boolean().nullable(),
    unit: z.string().nullable(),
    value: z.number().nullable(),
    display: z.string().nullable(),
    ts: z.string().nullable(),
  }),
  z.object({
    source: z.literal('stat'),
    name: z.string(),
    points: z.array(z.object({ windowStart: z.string(), key: z.string(), value: z.number().nullable() })),
  }),
  z.object({
    source: z.literal('alarm'),
    byLevel: z.array(z.object({ level: z.number(), count: z.number() })),
    rows: z.array(
      z.object({
        id: z.string(),
        level: z.number(),
        device: z.string(),
        variable: z.string().nullable(),
        status: z.string(),
        raisedAt: z.string(),
      }),
    ),
  }),
  z.object({
    source: z.literal('map'),
    /** Devices with coordinates, the alarmed first; `alarmLevel`: the highest of their active alarms. */
    points: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        sn: z.string(),
        lng: z.number(),
        lat: z.number(),
        online: z.boolean(),
        alarmLevel: z.number().nullable(),
      }),
    ),
    /** The devices the binding covers, and how many of them have no coordinates. */
    total: z.number(),
    unlocated: z.number(),
  }),
]);
export type ScreenWidgetData = z.infer<typeof screenWidgetData>;
/** The most devices a map widget places. */
export const SCREEN_MAP_POINTS = 2_000;
export const screenData = z.object({ at: z.string(), widgets: z.record(z.string(), screenWidgetData) });
export type ScreenData = z.infer<typeof screenData>;
/** A shared screen as its link shows it: layout and current data, read-only. */
export const sharedScreen = z.object({
  screen: screenRow,
  data: screenData,
  expiresAt: z.string(),
  /** Asked with `recent`: per device chart, its values of the last half hour, [time, value]. */
  recent: z.record(z.string(), z.array(z.tuple([z.string(), z.number()]))).optional(),
});
export type SharedScreen = z.infer<typeof sharedScreen>;
