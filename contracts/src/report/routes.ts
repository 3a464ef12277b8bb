import { z } from 'zod';
import { listQuery, page } from '../envelope.ts';
import { route } from '../http/route.ts';
import { idBody } from '../identity/common.ts';
import {
  reportCreateBody,
  reportExportQuery,
  reportFilters,
  reportQuery,
  reportRow,
  reportSortable,
  reportTable,
  reportUpdateBody,
} from './model.ts';
import { reportPerm as p } from './permissions.ts';

const idResult = z.object({ id: z.string() });
const tag = 'report';

/** Custom reports (issue 20, spec §2 report customization): run, exported, saved and emailed on a schedule. */
export const reportRoutes = {
  'report.run': route({
    method: 'GET',
    path: '/api/iot/report/run',
    permission: p.list,
    tag,
    summary: 'A report computed in the time-series store: the picked devices (or a group subtree), variables folded per cycle',
    query: reportQuery,
    response: reportTable,
    reads: ['devices'],
    errors: ['NOT_FOUND', 'REPORT_TOO_LARGE'],
  }),
  'report.export': route({
    method: 'GET',
    path: '/api/iot/report/export',
    permission: p.export,
    tag,
    summary: 'The same report as a file: CSV (UTF-8 with a byte order mark), XLSX or PDF',
    query: reportExportQuery,
    produces: 'text/csv',
    response: z.string().describe('CSV, or XLSX with format=xlsx, or PDF with format=pdf'),
    reads: ['devices'],
    errors: ['NOT_FOUND', 'REPORT_TOO_LARGE'],
  }),
  'report.list': route({
    method: 'GET',
    path: '/api/iot/report',
    permission: p.list,
    tag,
    summary: 'Saved reports of the tenant, filtered by name and schedule',
    query: listQuery(reportSortable, reportFilters),
    response: page(reportRow),
    reads: ['reports'],
  }),
  'report.detail': route({
    method: 'GET',
    path: '/api/iot/report/detail',
    permission: p.list,
    tag,
    summary: 'One saved report',
    query: idBody,
    response: reportRow,
    reads: ['reports'],
    errors: ['NOT_FOUND'],
  }),
  'report.create': route({
    method: 'POST',
    path: '/api/iot/report',
    permission: p.add,
    tag,
    summary: 'Save a report, with its schedule (daily, weekly, monthly) and the contacts it is emailed to',
    body: reportCreateBody,
    response: idResult,
    reads: ['reports'],
    errors: ['NOT_FOUND'],
  }),
  'report.update': route({
    method: 'PUT',
    path: '/api/iot/report',
    permission: p.edit,
    tag,
    summary: 'Edit a saved report and its schedule',
    body: reportUpdateBody,
    response: idResult,
    reads: ['reports'],
    errors: ['NOT_FOUND'],
  }),
  'report.delete': route({
    method: 'DELETE',
    path: '/api/iot/report',
    permission: p.delete,
    tag,
    summary: 'Delete a saved report (its schedule with it)',
    query: idBody,
    response: idResult,
    reads: ['reports'],
    errors: ['NOT_FOUND'],
  }),
};
export type ReportRoutes = typeof reportRoutes;
