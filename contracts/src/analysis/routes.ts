import { z } from 'zod';
import { page } from '../envelope.ts';
import { route } from '../http/route.ts';
import type { RoutePermission } from '../http/principal.ts';
import {
  dashboard,
  dashboardQuery,
  faultExportQuery,
  faultStats,
  faultStatsQuery,
  siteExportQuery,
  siteListQuery,
  siteRow,
  type FaultView,
  type SiteKind,
} from './model.ts';
import { analysisPerm as p } from './permissions.ts';

const tag = 'analysis';
const file = z.string().describe('CSV (UTF-8 with a byte order mark) or XLSX');

/** The statistics of one view and their export, each under its screen's permissions. */
const faultRoutes = <const V extends FaultView, const L extends RoutePermission, const E extends RoutePermission>(
  view: V,
  list: L,
  exportPerm: E,
  what: string,
) =>
  ({
    stats: route({
      method: 'GET',
      path: `/api/iot/analysis/stats/${view}`,
      permission: list,
      tag,
      summary: `${what}: alarm counts and durations by level, day, product, group and device, mean time to clear, in the caller's group subtree`,
      query: faultStatsQuery,
      response: faultStats,
      reads: ['alarms', 'groups', 'devices'],
      errors: ['NOT_FOUND'],
    }),
    export: route({
      method: 'GET',
      path: `/api/iot/analysis/stats/${view}/export`,
      permission: exportPerm,
      tag,
      summary: `${what} as CSV or XLSX (format=xlsx): one of its tables`,
      query: faultExportQuery,
      produces: 'text/csv',
      response: file,
      reads: ['alarms', 'groups', 'devices'],
      errors: ['NOT_FOUND'],
    }),
  }) as const;

const siteRoutes = <const K extends SiteKind, const L extends RoutePermission, const E extends RoutePermission>(
  kind: K,
  list: L,
  exportPerm: E,
) =>
  ({
    list: route({
      method: 'GET',
      path: `/api/iot/analysis/${kind}`,
      permission: list,
      tag,
      summary: `Groups of type ${kind} in the caller's group subtree, with their devices, online rate, active alarms and alarms in the range`,
      query: siteListQuery,
      response: page(siteRow),
      reads: ['groups', 'devices', 'alarms'],
    }),
    export: route({
      method: 'GET',
      path: `/api/iot/analysis/${kind}/export`,
      permission: exportPerm,
      tag,
      summary: `The ${kind} list as CSV or XLSX (format=xlsx), with the filters of the list`,
      query: siteExportQuery,
      produces: 'text/csv',
      response: file,
      reads: ['groups', 'devices', 'alarms'],
    }),
  }) as const;

const business = faultRoutes('business', p.businessList, p.businessExport, 'Business statistics');
const region = faultRoutes('region', p.regionFaultList, p.regionFaultExport, 'Regional fault statistics');
const garage = faultRoutes('garage', p.garageFaultList, p.garageFaultExport, 'Garage fault statistics');
const project = faultRoutes('project', p.projectFaultList, p.projectFaultExport, 'Project fault statistics');
const national = faultRoutes('national', p.nationalFaultList, p.nationalFaultExport, 'National fault statistics');
const projects = siteRoutes('project', p.projectList, p.projectExport);
const garages = siteRoutes('garage', p.garageList, p.garageExport);

/** Business and fault statistics, project and garage management, the home dashboard (spec §2 data analysis, issue 20). */
export const analysisRoutes = {
  'analysis.business': business.stats,
  'analysis.businessExport': business.export,
  'analysis.regionFault': region.stats,
  'analysis.regionFaultExport': region.export,
  'analysis.garageFault': garage.stats,
  'analysis.garageFaultExport': garage.export,
  'analysis.projectFault': project.stats,
  'analysis.projectFaultExport': project.export,
  'analysis.nationalFault': national.stats,
  'analysis.nationalFaultExport': national.export,
  'analysis.projects': projects.list,
  'analysis.projectsExport': projects.export,
  'analysis.garages': garages.list,
  'analysis.garagesExport': garages.export,
  'analysis.dashboard': route({
    method: 'GET',
    path: '/api/iot/analysis/dashboard',
    permission: p.dashboard,
    tag,
    summary:
      "The home dashboard for the caller's group subtree: devices total, online and offline, active alarms by level, today's data points, ingest rate, recent alarms and operations",
    query: dashboardQuery,
    response: dashboard,
    reads: ['devices', 'alarms', 'oplog'],
  }),
};
export type AnalysisRoutes = typeof analysisRoutes;
