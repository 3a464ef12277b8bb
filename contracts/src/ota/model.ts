import { z } from 'zod';
import { fileTaskStatuses } from '../constants.ts';
import { entityId } from '../identity/common.ts';
import { rolloutFileTypes } from '../file/model.ts';
import { deviceTaskCounts, deviceTaskDeviceQuery, deviceTaskFilters, type DeviceTaskCounts } from './device-task.ts';

/** A file task's status and each of its devices' (spec §4): pause is a device offline, or a task an operator paused. */
export type FileTaskStatus = (typeof fileTaskStatuses)[number];
/** Where an executing device is in its upgrade, as it reports it. */
export const otaStages = ['offered', 'downloading', 'verifying', 'installing'] as const;
export type OtaStage = (typeof otaStages)[number];
/** Where a task's device is: a stage it reported, or where it ended (done, failed), so a settled row never shows a stage it left. */
export const otaDeviceStages = [...otaStages, 'done', 'failed'] as const;
export type OtaDeviceStage = (typeof otaDeviceStages)[number];
/** The settled outcomes of a device in a task: what a wave's failure rate is counted from. */
export const otaOutcomes = ['success', 'fail', 'cancel'] as const;
export type OtaOutcome = (typeof otaOutcomes)[number];

/** Which devices a rollout targets: a product (optionally only those at one version), a group, or a list. */
export const otaTarget = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('product'), productId: entityId, version: z.string().trim().min(1).max(32).optional() }).strict(),
  z.object({ kind: z.literal('group'), groupId: entityId }).strict(),
  z.object({ kind: z.literal('devices'), deviceIds: z.array(entityId).min(1).max(10_000) }).strict(),
]);
export type OtaTarget = z.infer<typeof otaTarget>;

/**
 * Waves: `size` devices at a time, `pauseSec` between the end of one and the start of the next, and the task stops
 * (status fail) when more than `failurePercent` of a wave's devices failed.
 */
export const otaWaves = z
  .object({
    size: z.number().int().min(1).max(10_000).default(100),
    pauseSec: z.number().int().min(0).max(86_400).default(0),
    failurePercent: z.number().min(0).max(100).default(20),
  })
  .strict();
export type OtaWaves = z.infer<typeof otaWaves>;

export const otaTaskCreateBody = z
  .object({
    name: z.string().trim().min(1).max(64),
    /** The upgrade package: an uploaded file of type upgrade, patch or configuration. */
    fileId: entityId,
    target: otaTarget,
    waves: otaWaves.default({ size: 100, pauseSec: 0, failurePercent: 20 }),
  })
  .strict();
export type OtaTaskCreate = z.output<typeof otaTaskCreateBody>;

/** The file a task sends, as the task froze it at creation. */
export const otaFileRef = z.object({
  fileId: z.string(),
  name: z.string(),
  fileType: z.enum(rolloutFileTypes),
  version: z.string().nullable(),
  size: z.number().int(),
  sha256: z.string(),
});
export type OtaFileRef = z.infer<typeof otaFileRef>;

/** A rollout's devices counted by status (the shape every device task shares). */
export const otaCounts = deviceTaskCounts;
export type OtaCounts = DeviceTaskCounts;

export const otaTaskRow = z.object({
  id: z.string(),
  name: z.string(),
  file: otaFileRef,
  target: otaTarget,
  waves: otaWaves,
  status: z.enum(fileTaskStatuses),
  /** The wave running or last run (0: none yet), of `waveCount`. */
  wave: z.number().int(),
  waveCount: z.number().int(),
  /** When the next wave starts (after a wave's pause), ISO 8601; null when none is waiting. */
  nextWaveAt: z.string().nullable(),
  /** Why the task stopped by itself (the failure-rate stop), null otherwise. */
  reason: z.string().nullable(),
  counts: otaCounts,
  createTime: z.string(),
  updateTime: z.string(),
});
export type OtaTaskRow = z.infer<typeof otaTaskRow>;
export const otaTaskSortable = ['createTime', 'name'] as const;
export const otaTaskFilters = deviceTaskFilters;

export const otaDeviceRow = z.object({
  deviceId: z.string(),
  sn: z.string(),
  wave: z.number().int(),
  status: z.enum(fileTaskStatuses),
  stage: z.enum(otaDeviceStages).nullable(),
  percent: z.number().int().nullable(),
  fromVersion: z.string().nullable(),
  toVersion: z.string().nullable(),
  reason: z.string().nullable(),
  updateTime: z.string(),
});
export type OtaDeviceRow = z.infer<typeof otaDeviceRow>;
export const otaDeviceQuery = deviceTaskDeviceQuery.extend({ wave: z.coerce.number().int().min(1).optional() });

export const otaWaveRow = z.object({ wave: z.number().int(), counts: otaCounts });
export const otaTaskDetail = otaTaskRow.extend({ waveCounts: z.array(otaWaveRow) });
export type OtaTaskDetail = z.infer<typeof otaTaskDetail>;

/** A device's HTTP download of its rollout's file: its SN and the signed token its offer's URL carries. */
export const otaFirmwareQuery = z
  .object({
    sn: z.string().trim().min(1).max(64),
    token: z.string().min(16).max(2048),
  })
  .strict();

/**
 * A message of the `ota.progress` channel: one device of a rollout changed (its status, and its stage and percent when
 * the change reports them), or a task's status and device counts (sent a moment after its devices change).
 */
export const otaProgressFeed = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('device'),
    taskId: z.string(),
    deviceId: z.string(),
    status: z.enum(fileTaskStatuses),
    stage: z.enum(otaDeviceStages).nullable().optional(),
    percent: z.number().int().nullable().optional(),
    /** When the change was recorded (ISO 8601). */
    at: z.string(),
  }),
  z.object({
    type: z.literal('task'),
    taskId: z.string(),
    status: z.enum(fileTaskStatuses),
    wave: z.number().int(),
    counts: otaCounts,
  }),
]);
export type OtaProgressFeed = z.infer<typeof otaProgressFeed>;
