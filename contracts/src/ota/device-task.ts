import { z } from 'zod';
import { fileTaskStatuses } from '../constants.ts';
import { entityId } from '../identity/common.ts';

/**
 * What OTA rollouts and restart tasks share (spec §4 file task states): a task over a frozen set of devices, each
 * device with its own status, the task's list filtered by name and status, its devices paged and filtered by status.
 */
export const deviceTaskStatus = z.enum(fileTaskStatuses);

/** A task's devices counted by status. */
export const deviceTaskCounts = z.object({
  total: z.number().int(),
  nonExecution: z.number().int(),
  executing: z.number().int(),
  pause: z.number().int(),
  success: z.number().int(),
  fail: z.number().int(),
  cancel: z.number().int(),
});
export type DeviceTaskCounts = z.infer<typeof deviceTaskCounts>;
export const emptyDeviceTaskCounts = (): DeviceTaskCounts => ({
  total: 0,
  nonExecution: 0,
  executing: 0,
  pause: 0,
  success: 0,
  fail: 0,
  cancel: 0,
});

/** The filters of a task list. */
export const deviceTaskFilters = {
  name: z.string().trim().max(64).optional(),
  status: deviceTaskStatus.optional(),
};

/** A page of one task's devices, filtered by status. */
export const deviceTaskDeviceQuery = z
  .object({
    taskId: entityId,
    status: deviceTaskStatus.optional(),
    page: z.coerce.number().int().min(1).default(1),
    pageSize: z.coerce.number().int().min(1).max(500).default(50),
  })
  .strict();
