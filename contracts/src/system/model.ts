import { z } from 'zod';

const named = z.object({ id: z.string(), name: z.string() });

/**
 * An interface resource (spec §2 system → resources): one route of the route table that a permission guards, with the
 * module (the route's tag) it belongs to, and the roles and apps of the caller's tenant that hold its permission.
 */
export const resourceRow = z.object({
  module: z.string(),
  name: z.string(),
  method: z.string(),
  path: z.string(),
  summary: z.string(),
  permission: z.string(),
  roles: z.array(named),
  apps: z.array(named),
});
export type ResourceRow = z.infer<typeof resourceRow>;
export const resourceQuery = z
  .object({
    module: z.string().trim().max(64).optional(),
    /** A part of the path, the permission or the summary, any case. */
    keyword: z.string().trim().max(128).optional(),
  })
  .strict();

/** The kinds of scheduled job the task screen lists today (scenes, reports and OTA waves join as they come). */
export const scheduledJobKinds = ['statTask', 'forwardRetry'] as const;
export type ScheduledJobKind = (typeof scheduledJobKinds)[number];
/**
 * A scheduled job of the tenant (spec §2 system → tasks), read from the read model of the capability that owns it: its
 * schedule, next run, last result and duration where the capability records them, and which of pause, resume and
 * run-now its own routes offer (the screen calls those routes; this one only reads).
 */
export const scheduledJobRow = z.object({
  id: z.string(),
  kind: z.enum(scheduledJobKinds),
  /** The id of the job in its own capability: a statistic task, a forwarding rule. */
  sourceId: z.string(),
  name: z.string(),
  /** A statistic cycle (`1h`), or `backoff` for retries waiting their turn. */
  schedule: z.string(),
  timeZone: z.string().nullable(),
  status: z.enum(['enabled', 'stopped', 'pending']),
  nextRun: z.string().nullable(),
  lastRun: z.string().nullable(),
  lastResult: z.string().nullable(),
  durationMs: z.number().nullable(),
  /** Messages waiting for another attempt (retries only). */
  pending: z.number().int().nullable(),
  canPause: z.boolean(),
  canResume: z.boolean(),
  canRunNow: z.boolean(),
});
export type ScheduledJobRow = z.infer<typeof scheduledJobRow>;
export const scheduledJobQuery = z.object({ kind: z.enum(scheduledJobKinds).optional() }).strict();
