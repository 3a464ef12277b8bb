import { z } from 'zod';
import { listQuery, page } from '../envelope.ts';
import { route } from '../http/route.ts';
import { oplogQuery, oplogRow, oplogSortable } from '../identity/oplog.ts';
import { perm } from '../identity/permissions.ts';
import { devicePerm } from '../device/permissions.ts';

const tag = 'log';
const query = listQuery(oplogSortable, oplogQuery.shape);

/** The operation log (spec §2): who did what, when and from where, in the caller's tenant; CSV export for auditors. */
export const oplogRoutes = {
  'oplog.list': route({
    method: 'GET',
    path: '/api/auth/log',
    permission: perm.logList,
    tag,
    summary: 'The operation log; `format=csv` answers the CSV export (needs the export permission)',
    query,
    response: page(oplogRow),
    reads: ['oplog', 'users'],
  }),
  'oplog.export': route({
    method: 'GET',
    path: '/api/auth/log/export',
    permission: perm.logExport,
    tag,
    summary: 'The operation log as CSV',
    query,
    produces: 'text/csv',
    response: z.string().describe('CSV, UTF-8 with a byte order mark; XLSX with format=xlsx'),
    reads: ['oplog', 'users'],
  }),
  // The audit trail (issue 10): the same log with entity filters, for auditors who hold the audit screen.
  'audit.list': route({
    method: 'GET',
    path: '/api/auth/audit',
    permission: devicePerm.auditList,
    tag: 'audit',
    summary: "The tenant's audit trail: filter by actor, entity type, entity, action and time",
    query,
    response: page(oplogRow),
    reads: ['oplog', 'users'],
  }),
  'audit.export': route({
    method: 'GET',
    path: '/api/auth/audit/export',
    permission: devicePerm.auditExport,
    tag: 'audit',
    summary: 'The audit trail as CSV, or XLSX with format=xlsx',
    query,
    produces: 'text/csv',
    response: z.string().describe('CSV, UTF-8 with a byte order mark; XLSX with format=xlsx'),
    reads: ['oplog', 'users'],
  }),
};
export type OplogRoutes = typeof oplogRoutes;
