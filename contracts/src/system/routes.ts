import { z } from 'zod';
import { route } from '../http/route.ts';
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
};
export type SystemOpsRoutes = typeof systemOpsRoutes;
