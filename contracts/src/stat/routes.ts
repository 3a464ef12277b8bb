import { z } from 'zod';
import { listQuery, page } from '../envelope.ts';
import { route } from '../http/route.ts';
import { idBody } from '../identity/common.ts';
import {
  statResultQuery,
  statResultRow,
  statTaskCreateBody,
  statTaskFilters,
  statTaskRow,
  statTaskSortable,
  statTaskBackfillBody,
  statTaskStatusBody,
  statTaskUpdateBody,
} from './model.ts';
import { statPerm as p } from './permissions.ts';

const idResult = z.object({ id: z.string() });
const tag = 'statTask';

/** Statistic tasks (spec §3 Statistic task, §7 `statTask`, `statResult`, §9 cycles, types, data types). */
export const statRoutes = {
  'statTask.list': route({
    method: 'GET',
    path: '/api/iot/statTask',
    permission: p.list,
    tag,
    summary: 'Statistic tasks of the tenant, filtered by name, status and cycle',
    query: listQuery(statTaskSortable, statTaskFilters),
    response: page(statTaskRow),
    reads: ['statTasks'],
  }),
  'statTask.detail': route({
    method: 'GET',
    path: '/api/iot/statTask/detail',
    permission: p.list,
    tag,
    summary: 'One statistic task',
    query: idBody,
    response: statTaskRow,
    reads: ['statTasks'],
    errors: ['NOT_FOUND'],
  }),
  'statTask.create': route({
    method: 'POST',
    path: '/api/iot/statTask',
    permission: p.add,
    tag,
    summary: 'Create a statistic task (stopped until enabled)',
    body: statTaskCreateBody,
    response: idResult,
    reads: ['statTasks'],
    errors: ['NOT_FOUND', 'NOT_A_PROPERTY', 'STAT_TYPE_UNFIT'],
  }),
  'statTask.update': route({
    method: 'PUT',
    path: '/api/iot/statTask',
    permission: p.edit,
    tag,
    summary: 'Edit a statistic task',
    body: statTaskUpdateBody,
    response: idResult,
    reads: ['statTasks'],
    errors: ['NOT_FOUND', 'NOT_A_PROPERTY', 'STAT_TYPE_UNFIT'],
  }),
  'statTask.status': route({
    method: 'PUT',
    path: '/api/iot/statTask/status',
    permission: p.enable,
    tag,
    summary: 'Enable or stop a statistic task (after a confirm on the screen)',
    body: statTaskStatusBody,
    response: idResult,
    reads: ['statTasks'],
    errors: ['NOT_FOUND'],
  }),
  'statTask.delete': route({
    method: 'DELETE',
    path: '/api/iot/statTask',
    permission: p.delete,
    tag,
    summary: 'Delete a statistic task',
    query: idBody,
    response: idResult,
    reads: ['statTasks'],
    errors: ['NOT_FOUND'],
  }),
  'statTask.backfill': route({
    method: 'POST',
    path: '/api/iot/statTask/backfill',
    permission: p.edit,
    tag,
    summary: 'Compute a task over a past range (at most 366 days), window by window, with progress; it replaces a running one',
    body: statTaskBackfillBody,
    response: idResult,
    reads: ['statTasks'],
    errors: ['NOT_FOUND'],
  }),
  'statTask.backfillCancel': route({
    method: 'POST',
    path: '/api/iot/statTask/backfill/cancel',
    permission: p.edit,
    tag,
    summary: "Cancel a task's running backfill: the windows computed so far stay",
    body: idBody,
    response: idResult,
    reads: ['statTasks'],
    errors: ['NOT_FOUND'],
  }),
  'statResult.list': route({
    method: 'GET',
    path: '/api/iot/statResult',
    permission: p.result,
    tag,
    summary: "A task's results: one value per window and key (device, group, product or tenant), oldest window first",
    query: statResultQuery,
    response: z.array(statResultRow),
    reads: ['statTasks'],
    errors: ['NOT_FOUND'],
  }),
};
export type StatRoutes = typeof statRoutes;
