import { z } from 'zod';
import { fileTaskStatuses } from '../constants.ts';
import type { DomainEvent } from '../event.ts';
import { instant } from '../identity/common.ts';
import { otaTarget, type FileTaskStatus, type OtaTarget } from '../ota/model.ts';
import { deviceTaskCounts, deviceTaskDeviceQuery, deviceTaskFilters, type DeviceTaskCounts } from '../ota/device-task.ts';

/**
 * The reserved service a device receives a restart task's command as (`devices/{sn}/command/restart-{taskId}`,
 * `identifier: "restart"`, `params: {taskId}`); it acknowledges on `devices/{sn}/reply/restart-{taskId}` with
 * `{}` or `{"ok": true}` (success) or `{"ok": false, "reason": "..."}` (fail with that reason).
 */
export const RESTART_SERVICE = 'restart';
export const restartMessageId = (taskId: string) => `restart-${taskId}`;
export const restartTaskOfMessage = (messageId: string) => (messageId.startsWith('restart-') ? messageId.slice(8) : null);

const refusal = z.object({ ok: z.literal(false), reason: z.string().optional() });

/** A device's acknowledgement of a restart command, as its reply's output says it: anything but `{ok: false}` is success. */
export function restartAck(output: unknown): { ok: true } | { ok: false; reason: string } {
  const refused = refusal.safeParse(output);
  return refused.success ? { ok: false, reason: refused.data.reason?.slice(0, 256) || 'refused' } : { ok: true };
}

/** Why a restart failed when the device never acknowledged before the expiry. */
export const RESTART_EXPIRED = 'expired';

/** Spec §4: the expiry must be later than the task time. */
export const restartTaskCreateBody = z
  .object({
    name: z.string().trim().min(1).max(64),
    target: otaTarget,
    taskTime: instant,
    expiry: instant,
  })
  .strict()
  .refine((b) => Date.parse(b.expiry) > Date.parse(b.taskTime), { error: 'RESTART_EXPIRY', path: ['expiry'] });
export type RestartTaskCreate = z.output<typeof restartTaskCreateBody>;

export const restartCounts = deviceTaskCounts;
export type RestartCounts = DeviceTaskCounts;

export const restartTaskRow = z.object({
  id: z.string(),
  name: z.string(),
  target: otaTarget,
  status: z.enum(fileTaskStatuses),
  taskTime: z.string(),
  expiry: z.string(),
  counts: restartCounts,
  createTime: z.string(),
  updateTime: z.string(),
});
export type RestartTaskRow = z.infer<typeof restartTaskRow>;
export const restartTaskSortable = ['createTime', 'name', 'taskTime'] as const;
export const restartTaskFilters = deviceTaskFilters;

export const restartDeviceRow = z.object({
  deviceId: z.string(),
  sn: z.string(),
  status: z.enum(fileTaskStatuses),
  reason: z.string().nullable(),
  updateTime: z.string(),
});
export type RestartDeviceRow = z.infer<typeof restartDeviceRow>;
export const restartDeviceQuery = deviceTaskDeviceQuery;

/** Permission strings of the restart task routes: buttons under Device management → Upgrade tasks. */
export const restartPerm = {
  list: 'device:ota:list',
  add: 'device:ota:restart',
  cancel: 'device:ota:cancel',
} as const;

/** A device a restart task targets, frozen at creation. */
export interface RestartPlannedDevice {
  deviceId: string;
  sn: string;
}

/**
 * What can happen to a restart task (stream `restartTask-<tenant>.<taskId>`): the plan; at the task time each online
 * device is sent the restart command and each offline one paused; a paused device is sent it when it is back; each
 * device's acknowledgement, or failure; at the expiry the devices that never acknowledged fail (expired).
 */
export type RestartTaskEvent =
  | DomainEvent<
      'RestartTaskCreated',
      { taskId: string; name: string; target: OtaTarget; taskTime: string; expiry: string; devices: RestartPlannedDevice[] }
    >
  | DomainEvent<'RestartTaskStarted', { taskId: string }>
  | DomainEvent<'RestartDeviceSent', { taskId: string; deviceId: string }>
  | DomainEvent<'RestartDevicePaused', { taskId: string; deviceId: string }>
  | DomainEvent<'RestartDeviceSucceeded', { taskId: string; deviceId: string }>
  | DomainEvent<'RestartDeviceFailed', { taskId: string; deviceId: string; reason: string }>
  | DomainEvent<'RestartTaskCancelled', { taskId: string }>
  | DomainEvent<'RestartTaskFinished', { taskId: string; status: Extract<FileTaskStatus, 'success' | 'fail'> }>;
export type RestartTaskEventType = RestartTaskEvent['type'];
