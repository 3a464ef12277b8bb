import { z } from 'zod';
import { listQuery, page } from '../envelope.ts';
import { route } from '../http/route.ts';
import { idBody } from '../identity/common.ts';
import {
  restartDeviceQuery,
  restartDeviceRow,
  restartPerm as p,
  restartTaskCreateBody,
  restartTaskFilters,
  restartTaskRow,
  restartTaskSortable,
} from './model.ts';

const idResult = z.object({ id: z.string() });
const tag = 'restartTask';

/** Restart tasks (issue 21, spec §4 "expiry must be later than task time"): create, follow per device, cancel. */
export const restartRoutes = {
  'restartTask.list': route({
    method: 'GET',
    path: '/api/iot/restartTask',
    permission: p.list,
    tag,
    summary: 'Restart tasks of the tenant, filtered by name and status, with their device counts',
    query: listQuery(restartTaskSortable, restartTaskFilters),
    response: page(restartTaskRow),
    reads: ['restartTasks'],
  }),
  'restartTask.devices': route({
    method: 'GET',
    path: '/api/iot/restartTask/devices',
    permission: p.list,
    tag,
    summary: "A restart task's devices with their status and the reason of a failure",
    query: restartDeviceQuery,
    response: page(restartDeviceRow),
    reads: ['restartTasks'],
    errors: ['NOT_FOUND'],
  }),
  'restartTask.create': route({
    method: 'POST',
    path: '/api/iot/restartTask',
    permission: p.add,
    tag,
    summary: 'Create a restart task for devices by product, group or list, at a task time, with an expiry later than it',
    body: restartTaskCreateBody,
    response: idResult,
    reads: ['restartTasks'],
    errors: ['NOT_FOUND', 'OTA_NO_DEVICES', 'RESTART_EXPIRY'],
  }),
  'restartTask.cancel': route({
    method: 'PUT',
    path: '/api/iot/restartTask/cancel',
    permission: p.cancel,
    tag,
    summary: 'Cancel a restart task (after a confirm): devices not yet restarted are cancelled',
    body: idBody,
    response: idResult,
    reads: ['restartTasks'],
    errors: ['NOT_FOUND', 'OTA_TASK_STATE'],
  }),
};
export type RestartRoutes = typeof restartRoutes;
