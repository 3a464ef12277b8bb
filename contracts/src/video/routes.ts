import { z } from 'zod';
import { listQuery, page } from '../envelope.ts';
import { route } from '../http/route.ts';
import { idBody } from '../identity/common.ts';
import {
  alarmSnapshotQuery,
  alarmSnapshotRow,
  cameraCreateBody,
  cameraFilters,
  cameraRow,
  cameraSortable,
  cameraUpdateBody,
} from './model.ts';
import { videoPerm as p } from './permissions.ts';

const idResult = z.object({ id: z.string() });
const tag = 'camera';

/** Cameras of the video wall (spec §2 operation center → video surveillance, §7 `camera`). */
export const videoRoutes = {
  'camera.list': route({
    method: 'GET',
    path: '/api/iot/camera',
    permission: p.list,
    tag,
    summary: 'Cameras of the tenant, filtered by name, group subtree and device',
    query: listQuery(cameraSortable, cameraFilters),
    response: page(cameraRow),
    reads: ['cameras'],
  }),
  'camera.detail': route({
    method: 'GET',
    path: '/api/iot/camera/detail',
    permission: p.list,
    tag,
    summary: 'One camera',
    query: idBody,
    response: cameraRow,
    reads: ['cameras'],
    errors: ['NOT_FOUND'],
  }),
  'camera.create': route({
    method: 'POST',
    path: '/api/iot/camera',
    permission: p.add,
    tag,
    summary: 'Register a camera: its HLS stream, the group and device it watches, where it is',
    body: cameraCreateBody,
    response: idResult,
    reads: ['cameras'],
    errors: ['NOT_FOUND'],
  }),
  'camera.update': route({
    method: 'PUT',
    path: '/api/iot/camera',
    permission: p.edit,
    tag,
    summary: 'Edit a camera',
    body: cameraUpdateBody,
    response: idResult,
    reads: ['cameras'],
    errors: ['NOT_FOUND'],
  }),
  'camera.delete': route({
    method: 'DELETE',
    path: '/api/iot/camera',
    permission: p.delete,
    tag,
    summary: 'Delete a camera (alarms keep the snapshot reference they were raised with)',
    query: idBody,
    response: idResult,
    reads: ['cameras'],
    errors: ['NOT_FOUND'],
  }),
  'camera.snapshot': route({
    method: 'GET',
    path: '/api/iot/camera/snapshot',
    permission: p.list,
    tag,
    summary: 'The camera snapshot attached to an alarm by its rule: the camera, its stream then, and the moment',
    query: alarmSnapshotQuery,
    response: alarmSnapshotRow,
    reads: ['cameras'],
    errors: ['NOT_FOUND'],
  }),
};
export type VideoRoutes = typeof videoRoutes;
