import { z } from 'zod';
import { identifier } from '../device/thing-model.ts';
import { entityId, idList, instant, optionalText, timeZone } from '../identity/common.ts';

/** How a report folds each variable's samples within a cycle (spec §9's start and end are first and last). */
export const reportFns = ['avg', 'sum', 'max', 'min', 'count', 'first', 'last', 'diff'] as const;
export type ReportFn = (typeof reportFns)[number];
/** A report's cycle: the day chart's 15-minute slot, or a statistic cycle of spec §9. */
export const reportCycles = ['15m', '10m', '30m', '1h', '12h', '1d', '1w', '1M'] as const;
export type ReportCycle = (typeof reportCycles)[number];
/**
 * How often a saved report is emailed, as a table in the mail's text; each sending covers the period that just closed
 * (yesterday, last week, last month, in the report's zone).
 */
export const reportFrequencies = ['none', 'daily', 'weekly', 'monthly'] as const;
export type ReportFrequency = (typeof reportFrequencies)[number];
export const reportFormats = ['csv', 'xlsx', 'pdf'] as const;
export type ReportFormat = (typeof reportFormats)[number];

/** Devices a report covers at most, and the cells (rows × variables) one report holds at most. */
export const REPORT_MAX_DEVICES = 200;
export const REPORT_MAX_CELLS = 2_000_000;
/** Rows the screen's table shows at most (the export holds them all). */
export const REPORT_VIEW_ROWS = 5_000;

const variableList = z
  .union([z.array(identifier), z.string().transform((v) => v.split(',').filter(Boolean))])
  .pipe(z.array(identifier).min(1).max(10));

/** What a report computes: whose samples (devices, or a group's subtree), which variables, folded how and how often. */
const reportShape = {
  /** Devices picked one by one; or leave empty and name a group. */
  deviceIds: idList.pipe(z.array(entityId).max(REPORT_MAX_DEVICES)).optional(),
  groupId: entityId.optional(),
  variables: variableList,
  fn: z.enum(reportFns).default('avg'),
  cycle: z.enum(reportCycles).default('1h'),
  timeZone: timeZone.default('Asia/Shanghai'),
};
/** Devices picked, a group, or both (the picked devices that are in the group's subtree). */
const oneSource = (q: { deviceIds?: string[] | undefined; groupId?: string | undefined }) =>
  (q.deviceIds?.length ?? 0) > 0 || q.groupId !== undefined;

/** A report run for the screen or a file: its definition and the range [from, to). */
export const reportQuery = z
  .object({ ...reportShape, from: instant, to: instant })
  .strict()
  .refine(oneSource, { message: 'pick devices or a group', path: ['deviceIds'] })
  .refine((q) => Date.parse(q.from) < Date.parse(q.to), { message: 'from must be before to', path: ['to'] })
  .refine((q) => Date.parse(q.to) - Date.parse(q.from) <= 400 * 86_400_000, { message: 'at most 400 days', path: ['to'] });
export type ReportQuery = z.output<typeof reportQuery>;
export const reportExportQuery = z
  .object({ ...reportShape, from: instant, to: instant, format: z.enum(reportFormats).default('csv'), name: optionalText(64) })
  .strict()
  .refine(oneSource, { message: 'pick devices or a group', path: ['deviceIds'] })
  .refine((q) => Date.parse(q.from) < Date.parse(q.to), { message: 'from must be before to', path: ['to'] });
export type ReportExportQuery = z.output<typeof reportExportQuery>;

/** A saved report: its definition, the range it opens with (the last day, week or month), and its schedule. */
const reportFieldsShape = z.object({
  name: z.string().trim().min(1).max(64),
  deviceIds: z.array(entityId).max(REPORT_MAX_DEVICES).default([]),
  groupId: entityId.nullish().transform((v) => v ?? null),
  variables: z.array(identifier).min(1).max(10),
  fn: z.enum(reportFns),
  cycle: z.enum(reportCycles),
  timeZone: timeZone.default('Asia/Shanghai'),
  /** How often it is emailed, at `hour` (0-23) local time; weekly on Mondays, monthly on the 1st. */
  frequency: z.enum(reportFrequencies).default('none'),
  hour: z.number().int().min(0).max(23).default(8),
  /** Contacts (spec §3 Contact) it is emailed to. */
  contactIds: z.array(entityId).max(50).default([]),
  remark: optionalText(256),
});
/** A report names devices, a group (its subtree), or both (the picked devices of the group); a schedule needs contacts. */
const soundReport = <T extends z.ZodType<{ deviceIds: string[]; groupId: string | null; frequency: string; contactIds: string[] }>>(
  schema: T,
) =>
  schema
    .refine((r) => r.deviceIds.length > 0 || r.groupId !== null, { message: 'pick devices or a group', path: ['deviceIds'] })
    .refine((r) => r.frequency === 'none' || r.contactIds.length > 0, {
      message: 'a scheduled report needs contacts',
      path: ['contactIds'],
    });
export const reportFields = soundReport(reportFieldsShape.strict());
export type ReportFields = z.output<typeof reportFields>;
export const reportCreateBody = reportFields;
export const reportUpdateBody = soundReport(reportFieldsShape.extend({ id: entityId }).strict());

export const reportRow = z.object({
  id: z.string(),
  name: z.string(),
  deviceIds: z.array(z.string()),
  groupId: z.string().nullable(),
  variables: z.array(z.string()),
  fn: z.enum(reportFns),
  cycle: z.enum(reportCycles),
  timeZone: z.string(),
  frequency: z.enum(reportFrequencies),
  hour: z.number().int(),
  contactIds: z.array(z.string()),
  remark: z.string().nullable(),
  /** When it was last emailed, ISO 8601; null before its first sending. */
  lastSentAt: z.string().nullable(),
  createTime: z.string(),
  updateTime: z.string(),
});
export type ReportRow = z.infer<typeof reportRow>;
export const reportSortable = ['createTime', 'name'] as const;
export const reportFilters = {
  name: z.string().trim().max(64).optional(),
  frequency: z.enum(reportFrequencies).optional(),
};

/** A report's answer: its columns (one per variable), devices, and one row per cycle and device, oldest first. */
export const reportTable = z.object({
  columns: z.array(z.object({ variable: z.string(), name: z.string().nullable(), unit: z.string().nullable() })),
  devices: z.array(z.object({ id: z.string(), sn: z.string(), name: z.string() })),
  rows: z.array(
    z.object({
      /** Start of the cycle, ISO 8601 UTC. */
      time: z.string(),
      deviceId: z.string(),
      /** One per column; null where the cycle has no sample of it. */
      values: z.array(z.number().nullable()),
    }),
  ),
  /** Rows of the whole report; the answer holds the first REPORT_VIEW_ROWS. */
  total: z.number().int(),
});
export type ReportTable = z.infer<typeof reportTable>;
