import ExcelJS from 'exceljs';
import { csvAnswer, csvCell } from '../shared/csv.ts';
import { DomainError, perm, type OplogRoutes, type OplogRow, type oplogSortable } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { hasPermission } from '@iot/contracts/http/principal.ts';
import { rawAnswer, type QueryOf } from '@iot/contracts/http/route.ts';
import { iso, pageOf, param, type ListSpec } from '../shared/paging.ts';

type LogQuery = QueryOf<OplogRoutes['oplog.list']>;

const toOplogRow = (r: Record<string, unknown>): OplogRow => ({
  position: r.position as string,
  eventId: r.event_id as string,
  occurredAt: iso(r.occurred_at),
  actorKind: r.actor_kind as string,
  actorId: r.actor_id as string,
  actorName: (r.actor_name as string | null) ?? null,
  eventType: r.event_type as string,
  stream: r.stream as string,
  targetName: (r.target_name as string | null) ?? null,
  ip: (r.ip as string | null) ?? null,
  correlationId: r.correlation_id as string,
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

function specOf(tenantId: string, q: LogQuery): ListSpec {
  const spec: ListSpec = {
    select: 'l.*, u.username as actor_name',
    from: `rm_oplog l left join rm_users u on l.actor_kind = 'user' and u.id = l.actor_id`,
    where: ['l.tenant_id = $1'],
    params: [tenantId],
    sortable: { occurredAt: 'l.occurred_at', eventType: 'l.event_type', actorId: 'l.actor_id' } satisfies Record<
      (typeof oplogSortable)[number],
      string
    >,
    defaultSort: 'l.occurred_at',
  };
  if (q.actor) spec.where.push(`(l.actor_id = ${param(spec.params, q.actor)} or u.username ilike ${param(spec.params, `%${q.actor}%`)})`);
  if (q.eventType) spec.where.push(`l.event_type ilike ${param(spec.params, `%${q.eventType}%`)}`);
  if (q.entityType) spec.where.push(`split_part(l.stream, '-', 1) = ${param(spec.params, q.entityType)}`);
  if (q.entity) {
    const literal = q.entity.replace(/[\\%_]/g, '\\$&');
    spec.where.push(`(l.stream like ${param(spec.params, `%.${literal}`)} or l.target_name ilike ${param(spec.params, `%${literal}%`)})`);
  }
  if (q.from) spec.where.push(`l.occurred_at >= ${param(spec.params, q.from)}`);
  if (q.to) spec.where.push(`l.occurred_at <= ${param(spec.params, q.to)}`);
  return spec;
}

export { csvCell };

/** The log as a file: CSV (formula-safe cells, byte order mark) or XLSX, as the query's `format` asks. */
async function exportLog(ctx: RequestContext, q: LogQuery) {
  const result = await pageOf(
    ctx.ports.db,
    { page: 1, pageSize: EXPORT_LIMIT, order: q.order, sort: q.sort },
    specOf(callerOf(ctx).tenantId, q),
    toOplogRow,
  );
  const name = `operation-log-${new Date().toISOString().slice(0, 10)}`;
  if (q.format === 'xlsx') {
    const book = new ExcelJS.Workbook();
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
    return pageOf(ctx.ports.db, query, specOf(callerOf(ctx).tenantId, query), toOplogRow);
  },
  'oplog.export': ({ query }, ctx) => exportLog(ctx, query),
  'audit.list': ({ query }, ctx) => pageOf(ctx.ports.db, query, specOf(callerOf(ctx).tenantId, query), toOplogRow),
  'audit.export': ({ query }, ctx) => exportLog(ctx, query),
};
