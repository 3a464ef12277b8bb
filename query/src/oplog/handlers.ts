import { excelJs } from '../shared/xlsx.ts';
import { csvAnswer, csvCell } from '../shared/csv.ts';
import { DomainError, perm, SYSTEM_TENANT, type OplogRoutes, type OplogRow, type Page, type PageQuery } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { hasPermission } from '@iot/contracts/http/principal.ts';
import { rawAnswer, type QueryOf } from '@iot/contracts/http/route.ts';
import { oplogPage, type OplogFilter, type OplogRecord } from '@iot/projections/oplog/read.ts';
import { userIdsNamedLike, usernamesById } from '@iot/projections/user/read.ts';

type LogQuery = QueryOf<OplogRoutes['oplog.list']>;

const toOplogRow = (e: OplogRecord, names: Map<string, string>): OplogRow => ({
  position: e.position,
  eventId: e.eventId,
  occurredAt: e.occurredAt.toISOString(),
  actorKind: e.actorKind,
  actorId: e.actorId,
  actorName: e.actorKind === 'user' ? (names.get(e.actorId) ?? null) : null,
  eventType: e.eventType,
  stream: e.stream,
  targetName: e.targetName,
  ip: e.ip,
  correlationId: e.correlationId,
});

const EXPORT_LIMIT = 50_000;
const columns: (keyof OplogRow)[] = [
  'occurredAt',
  'actorKind',
  'actorId',
  'actorName',
  'eventType',
  'stream',
  'targetName',
  'ip',
  'correlationId',
  'eventId',
];

/** A page of the caller's tenant's log, filtered as asked, each actor by name. */
async function logPage(ctx: RequestContext, q: LogQuery, page: PageQuery): Promise<Page<OplogRow>> {
  const { db } = ctx.ports;
  const { tenantId } = callerOf(ctx);
  const filter: OplogFilter = { eventType: q.eventType, entityType: q.entityType, entity: q.entity, from: q.from, to: q.to };
  // An actor is asked for by id or by a part of a username (the tenant's users, or the platform's administrators acting in it).
  if (q.actor) filter.actor = { id: q.actor, userIds: await userIdsNamedLike(db, [tenantId, SYSTEM_TENANT], q.actor) };
  const entries = await oplogPage(db, tenantId, filter, page);
  const users = entries.rows.filter((e) => e.actorKind === 'user').map((e) => e.actorId);
  const names = await usernamesById(db, [...new Set(users)]);
  return { ...entries, rows: entries.rows.map((e) => toOplogRow(e, names)) };
}

export { csvCell };

/** The log as a file: CSV (formula-safe cells, byte order mark) or XLSX, as the query's `format` asks. */
async function exportLog(ctx: RequestContext, q: LogQuery) {
  const result = await logPage(ctx, q, { page: 1, pageSize: EXPORT_LIMIT, order: q.order, sort: q.sort });
  const name = `operation-log-${new Date().toISOString().slice(0, 10)}`;
  if (q.format === 'xlsx') {
    const book = new (await excelJs()).Workbook();
    const sheet = book.addWorksheet('log');
    sheet.columns = columns.map((c) => ({ header: c, key: c, width: c === 'occurredAt' ? 26 : 18 }));
    // Cells go in as text (never formulas): a value beginning with = is shown, not run.
    for (const row of result.rows) sheet.addRow(Object.fromEntries(columns.map((c) => [c, row[c] ?? ''])));
    const bytes = new Uint8Array(await book.xlsx.writeBuffer());
    return rawAnswer('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', bytes, `${name}.xlsx`);
  }
  return csvAnswer(`${name}.csv`, columns, result.rows);
}

/** The operation log (spec §2): who did what, when and from where, in the caller's tenant; CSV export for auditors. */
export const oplogQueryHandlers: Handlers<OplogRoutes> = {
  async 'oplog.list'({ query }, ctx) {
    if (query.format === 'csv' || query.format === 'xlsx') {
      if (!hasPermission(callerOf(ctx), perm.logExport)) throw new DomainError('FORBIDDEN');
      return exportLog(ctx, query);
    }
    return logPage(ctx, query, query);
  },
  'oplog.export': ({ query }, ctx) => exportLog(ctx, query),
  'audit.list': ({ query }, ctx) => logPage(ctx, query, query),
  'audit.export': ({ query }, ctx) => exportLog(ctx, query),
};
