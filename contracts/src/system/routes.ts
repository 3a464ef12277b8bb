import { z } from 'zod';
import { route } from '../http/route.ts';
import { idBody } from '../identity/common.ts';
import { resourceQuery, resourceRow, scheduledJobQuery, scheduledJobRow } from './model.ts';
import { systemOpsPerm as p } from './permissions.ts';

/** System management → resources (what the route table guards and who holds it) and tasks (spec §2). */
export const systemOpsRoutes = {
  'resource.list': route({
    method: 'GET',
    path: '/api/auth/resource',
    permission: p.resourceList,
    tag: 'resource',
    summary: 'Interface resources: each permission-guarded route by module, with the roles and apps of the tenant that hold it',
    query: resourceQuery,
    response: z.array(resourceRow),
    reads: ['roles', 'apps', 'menus'],
  }),
  'systemTask.list': route({
    method: 'GET',
    path: '/api/auth/task',
    permission: p.taskList,
    tag: 'task',
    summary: 'Scheduled jobs of the tenant (statistic tasks, forwarding retries): schedule, next run, last result and duration',
    query: scheduledJobQuery,
    response: z.array(scheduledJobRow),
    reads: ['statTasks', 'forward'],
  }),
  'systemTask.run': route({
    method: 'POST',
    path: '/api/auth/task/run',
    permission: p.taskRunNow,
    tag: 'task',
    summary: 'Runs a statistic task now, over its recent windows: the scheduler takes the request within seconds and records the run',
    body: idBody,
    response: z.object({ requested: z.boolean() }),
    reads: [],
    errors: ['NOT_FOUND'],
  }),
};
export type SystemOpsRoutes = typeof systemOpsRoutes;
