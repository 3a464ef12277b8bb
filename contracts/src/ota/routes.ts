import { z } from 'zod';
import { listQuery, page } from '../envelope.ts';
import { route } from '../http/route.ts';
import { idBody } from '../identity/common.ts';
import {
  otaDeviceQuery,
  otaFirmwareQuery,
  otaDeviceRow,
  otaTaskCreateBody,
  otaTaskDetail,
  otaTaskFilters,
  otaTaskRow,
  otaTaskSortable,
} from './model.ts';
import { otaPerm as p } from './permissions.ts';

const idResult = z.object({ id: z.string() });
const tag = 'otaTask';

/** OTA and configuration rollouts (issue 21, spec §4 file task states): create, follow per wave and device, pause, resume, cancel. */
export const otaRoutes = {
  'otaTask.list': route({
    method: 'GET',
    path: '/api/iot/otaTask',
    permission: p.list,
    tag,
    summary: 'Rollout tasks of the tenant, filtered by name and status, with their device counts',
    query: listQuery(otaTaskSortable, otaTaskFilters),
    response: page(otaTaskRow),
    reads: ['otaTasks'],
  }),
  'otaTask.detail': route({
    method: 'GET',
    path: '/api/iot/otaTask/detail',
    permission: p.list,
    tag,
    summary: 'One rollout task with its counts per wave',
    query: idBody,
    response: otaTaskDetail,
    reads: ['otaTasks'],
    errors: ['NOT_FOUND'],
  }),
  'otaTask.devices': route({
    method: 'GET',
    path: '/api/iot/otaTask/devices',
    permission: p.list,
    tag,
    summary: "A task's devices with their status, stage and percent, filtered by wave and status",
    query: otaDeviceQuery,
    response: page(otaDeviceRow),
    reads: ['otaTasks'],
    errors: ['NOT_FOUND'],
  }),
  'otaTask.create': route({
    method: 'POST',
    path: '/api/iot/otaTask',
    permission: p.add,
    tag,
    summary: 'Create a rollout of an upgrade, patch or configuration file to devices by product and version, group or list',
    body: otaTaskCreateBody,
    response: idResult,
    reads: ['otaTasks'],
    errors: ['NOT_FOUND', 'OTA_FILE_UNFIT', 'OTA_NO_DEVICES'],
  }),
  'otaTask.pause': route({
    method: 'PUT',
    path: '/api/iot/otaTask/pause',
    permission: p.pause,
    tag,
    summary: 'Pause a rollout (after a confirm): no further wave starts; devices already upgrading finish',
    body: idBody,
    response: idResult,
    reads: ['otaTasks'],
    errors: ['NOT_FOUND', 'OTA_TASK_STATE'],
  }),
  'otaTask.resume': route({
    method: 'PUT',
    path: '/api/iot/otaTask/resume',
    permission: p.pause,
    tag,
    summary: 'Resume a paused rollout (after a confirm)',
    body: idBody,
    response: idResult,
    reads: ['otaTasks'],
    errors: ['NOT_FOUND', 'OTA_TASK_STATE'],
  }),
  'otaTask.cancel': route({
    method: 'PUT',
    path: '/api/iot/otaTask/cancel',
    permission: p.cancel,
    tag,
    summary: 'Cancel a rollout (after a confirm): devices not yet upgraded are cancelled',
    body: idBody,
    response: idResult,
    reads: ['otaTasks'],
    errors: ['NOT_FOUND', 'OTA_TASK_STATE'],
  }),
  'otaTask.firmware': route({
    method: 'GET',
    path: '/api/iot/otaTask/firmware',
    permission: 'public',
    tag,
    summary:
      "A device downloads its rollout's file at the URL its offer carries (no login: a short-lived token signed for this device and task); a Range header gets 206, so a cut download resumes. An expired token is 401, an altered one or another device's 403",
    query: otaFirmwareQuery,
    response: z.unknown(),
    produces: 'application/octet-stream',
    reads: [],
    errors: ['OTA_LINK_EXPIRED', 'OTA_LINK_INVALID', 'RANGE_NOT_SATISFIABLE'],
  }),
};
export type OtaRoutes = typeof otaRoutes;
