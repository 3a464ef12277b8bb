import { z } from 'zod';
import { listQuery, page } from '../envelope.ts';
import { route } from '../http/route.ts';
import { oplogQuery, oplogRow, oplogSortable } from '../identity/oplog.ts';
import { perm } from '../identity/permissions.ts';

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
    response: z.string().describe('CSV, UTF-8 with a byte order mark'),
    reads: ['oplog', 'users'],
  }),
};
export type OplogRoutes = typeof oplogRoutes;
