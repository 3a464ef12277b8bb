import { z } from 'zod';
import { statCycles, statDataTypes, statTypes } from '../constants.ts';
import { identifier } from '../device/thing-model.ts';
import { enabledStatuses, entityId, instant, optionalText, timeZone } from '../identity/common.ts';

/** What a statistic is grouped by (issue 20): one result per device, group, product, or one for the tenant. */
export const statDimensions = ['device', 'group', 'product', 'tenant'] as const;
export type StatDimension = (typeof statDimensions)[number];
export type StatType = (typeof statTypes)[number];
export type StatDataType = (typeof statDataTypes)[number];

/**
 * Abnormal data left out before folding: `range` drops samples outside the thing model's range of the
 * attribute (min and max as the task holds them), `stdDev` drops samples more than `sigma` standard
 * deviations from the window's mean.
 */
export const statExclusion = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('none') }).strict(),
  z.object({ mode: z.literal('range'), min: z.number().finite(), max: z.number().finite() }).strict(),
  z.object({ mode: z.literal('stdDev'), sigma: z.number().finite().min(0.5).max(10) }).strict(),
]);
export type StatExclusion = z.infer<typeof statExclusion>;

export const statTaskFields = z
  .object({
    name: z.string().trim().min(1).max(64),
    dataType: z.enum(statDataTypes),
    /** The product whose thing model names the attribute; null for every product of the tenant. */
    productId: entityId.nullish().transform((v) => v ?? null),
    /** The attribute (variable identifier); for data type alarm, the alarm rule's variable or `*` for all. */
    attribute: z.union([identifier, z.literal('*')]),
    statType: z.enum(statTypes),
    cycle: z.enum(statCycles),
    dimension: z.enum(statDimensions),
    exclusion: statExclusion.default({ mode: 'none' }),
    /** The zone the windows align to (day, week from Monday, month). */
    timeZone: timeZone.default('Asia/Shanghai'),
    remark: optionalText(256),
  })
  .strict()
  .superRefine((task, ctx) => {
    if (task.exclusion.mode === 'range' && task.exclusion.min > task.exclusion.max)
      ctx.addIssue({ code: 'custom', path: ['exclusion', 'min'], message: 'min: above max' });
  });
export type StatTaskFields = z.output<typeof statTaskFields>;
export const statTaskCreateBody = statTaskFields;
export const statTaskUpdateBody = statTaskFields.safeExtend({ id: entityId });
/** Enabling or stopping a task is its own route: the screen asks for a confirm first (spec §4). */
export const statTaskStatusBody = z.object({ id: entityId, status: z.enum(enabledStatuses) }).strict();

/** A backfill over past data: its range, where it stands, and how far it got (0 to 1). */
export const statBackfillState = z.object({
  from: z.string(),
  to: z.string(),
  status: z.enum(['running', 'done', 'cancelled', 'failed']),
  progress: z.number().min(0).max(1),
});
/** How far a backfill of [from, to) got once computed up to `doneUntil` (none yet: 0), from 0 to 1. */
export function backfillProgress(from: Date, to: Date, doneUntil: Date | null): number {
  const span = to.getTime() - from.getTime();
  return span <= 0 ? 1 : Math.min(1, Math.max(0, ((doneUntil ?? from).getTime() - from.getTime()) / span));
}
/** A message of the `stat.backfill` channel: a task's backfill moved on (a chunk computed) or ended. */
export const statBackfillFeed = statBackfillState.extend({ taskId: z.string() });
export type StatBackfillFeed = z.infer<typeof statBackfillFeed>;

export const statTaskRow = z.object({
  id: z.string(),
  name: z.string(),
  dataType: z.enum(statDataTypes),
  productId: z.string().nullable(),
  /** The product's name, for the list (null for every product, or a product since deleted). */
  productName: z.string().nullable(),
  attribute: z.string(),
  /** The attribute's name in the product's thing model (温度 for `temperature`); null when no product names it. */
  attributeName: z.string().nullable(),
  statType: z.enum(statTypes),
  cycle: z.enum(statCycles),
  dimension: z.enum(statDimensions),
  exclusion: statExclusion,
  timeZone: z.string(),
  remark: z.string().nullable(),
  status: z.enum(enabledStatuses),
  createTime: z.string(),
  updateTime: z.string(),
  /** The task's latest backfill over past data: its range, where it stands, and how far it got (0 to 1). */
  backfill: statBackfillState.nullable(),
});
export type StatTaskRow = z.infer<typeof statTaskRow>;
export const statTaskSortable = ['createTime', 'name'] as const;
export const statTaskFilters = {
  name: z.string().trim().max(64).optional(),
  status: z.enum(enabledStatuses).optional(),
  cycle: z.enum(statCycles).optional(),
};

export const statResultQuery = z
  .object({
    taskId: entityId,
    /** Windows starting at or after. */
    from: instant,
    /** Windows starting before. */
    to: instant,
    /** One device, group or product of the task's dimension. */
    key: z.string().max(64).optional(),
  })
  .strict();
export const statResultRow = z.object({
  /** Start of the window, ISO 8601 UTC. */
  windowStart: z.string(),
  /** The device, group or product id; the tenant id for dimension tenant. */
  key: z.string(),
  value: z.number().nullable(),
  /** Samples folded after exclusion. */
  samples: z.number().int(),
});
export type StatResultRow = z.infer<typeof statResultRow>;

/** The longest past range one backfill computes. */
export const STAT_BACKFILL_MAX_DAYS = 366;
/** Computes a task over a past range (a new task over the data already kept), window by window, with progress. */
export const statTaskBackfillBody = z
  .object({ id: entityId, from: instant, to: instant })
  .strict()
  .superRefine((b, ctx) => {
    const span = Date.parse(b.to) - Date.parse(b.from);
    if (!(span > 0)) ctx.addIssue({ code: 'custom', path: ['to'], message: 'to: after from' });
    else if (span > STAT_BACKFILL_MAX_DAYS * 86_400_000)
      ctx.addIssue({ code: 'custom', path: ['to'], message: `to: at most ${STAT_BACKFILL_MAX_DAYS} days after from` });
  });
