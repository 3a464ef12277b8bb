import { z } from 'zod';
import { listQuery, page } from '../envelope.ts';
import { exportFormat } from '../alarm/model.ts';
import { route } from '../http/route.ts';
import { idBody } from '../identity/common.ts';
import {
  linkageLogFilters,
  linkageLogRow,
  linkageLogSortable,
  ruleListFilters,
  ruleListRow,
  sceneCreateBody,
  sceneFilters,
  sceneRow,
  sceneSortable,
  sceneStatusBody,
  sceneUpdateBody,
} from './model.ts';
import { scenePerm as p } from './permissions.ts';

const idResult = z.object({ id: z.string() });
const csv = z.string().describe('CSV, UTF-8 with a byte order mark');
const tag = 'scene';

/** Scene linkage and its log (spec §3 "Scene linkage", "Linkage log", §7 `ruleEngine linkage and log list`, §9 scenes), and the rule list. */
export const sceneRoutes = {
  'scene.list': route({
    method: 'GET',
    path: '/api/iot/ruleEngine/linkage',
    permission: p.list,
    tag,
    summary: 'Scenes of the tenant, filtered by name and status, with their latest run',
    query: listQuery(sceneSortable, sceneFilters),
    response: page(sceneRow),
    reads: ['scenes'],
  }),
  'scene.detail': route({
    method: 'GET',
    path: '/api/iot/ruleEngine/linkage/detail',
    permission: p.list,
    tag,
    summary: 'One scene with its triggers, conditions and actions',
    query: idBody,
    response: sceneRow,
    reads: ['scenes'],
    errors: ['NOT_FOUND'],
  }),
  'scene.create': route({
    method: 'POST',
    path: '/api/iot/ruleEngine/linkage',
    permission: p.add,
    tag,
    summary: 'Create a scene (stopped until enabled); its devices and the scenes it enables must be of the tenant',
    body: sceneCreateBody,
    response: idResult,
    reads: ['scenes'],
    errors: ['NOT_FOUND', 'SCENE_CRON_INVALID'],
  }),
  'scene.update': route({
    method: 'PUT',
    path: '/api/iot/ruleEngine/linkage',
    permission: p.edit,
    tag,
    summary: 'Edit a scene',
    body: sceneUpdateBody,
    response: idResult,
    reads: ['scenes'],
    errors: ['NOT_FOUND', 'SCENE_CRON_INVALID'],
  }),
  'scene.status': route({
    method: 'PUT',
    path: '/api/iot/ruleEngine/linkage/status',
    permission: p.enable,
    tag,
    summary: 'Enable or stop a scene (after a confirm on the screen)',
    body: sceneStatusBody,
    response: idResult,
    reads: ['scenes'],
    errors: ['NOT_FOUND'],
  }),
  'scene.delete': route({
    method: 'DELETE',
    path: '/api/iot/ruleEngine/linkage',
    permission: p.delete,
    tag,
    summary: 'Delete a scene (after a confirm); its log stays',
    query: idBody,
    response: idResult,
    reads: ['scenes'],
    errors: ['NOT_FOUND'],
  }),
  'scene.invoke': route({
    method: 'POST',
    path: '/api/iot/ruleEngine/linkage/invoke',
    permission: p.invoke,
    tag,
    summary: 'Run an enabled scene now (its invoke trigger): the run and its result appear in the linkage log',
    body: idBody,
    response: z.object({ id: z.string(), runId: z.string() }),
    reads: ['scenes'],
    errors: ['NOT_FOUND', 'SCENE_STOPPED', 'SCENE_NOT_INVOKABLE'],
  }),
  'linkageLog.list': route({
    method: 'GET',
    path: '/api/iot/ruleEngine/linkage/log',
    permission: p.logList,
    tag,
    summary: 'The linkage log, newest first, filtered by scene, result, trigger type and time range',
    query: listQuery(linkageLogSortable, linkageLogFilters),
    response: page(linkageLogRow),
    reads: ['sceneLog'],
  }),
  'linkageLog.export': route({
    method: 'GET',
    path: '/api/iot/ruleEngine/linkage/log/export',
    permission: p.logExport,
    tag,
    summary: 'The linkage log as CSV or XLSX (format=xlsx), with the filters of the list',
    query: listQuery(linkageLogSortable, { ...linkageLogFilters, format: exportFormat }),
    produces: 'text/csv',
    response: csv,
    reads: ['sceneLog'],
  }),
  'rule.list': route({
    method: 'GET',
    path: '/api/iot/ruleEngine/list',
    permission: p.ruleList,
    tag,
    summary: 'Every rule of the tenant in one list: alarm rules, rule chains and scenes, with kind, status and last trigger',
    query: listQuery(['updateTime', 'name', 'lastTriggerTime'] as const, ruleListFilters),
    response: page(ruleListRow),
    reads: ['scenes', 'ruleChains', 'alarmRules'],
  }),
};
export type SceneRoutes = typeof sceneRoutes;
