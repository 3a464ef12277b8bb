import { stringify } from 'csv-stringify/sync';
import { DomainError, envelope, oplogQuery, oplogRow, page, pageQuery, perm, type OplogRow } from '@iot/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RoutesPlugin } from '@iot/infra/http/app.ts';
import { ok } from '@iot/infra/http/envelope.ts';
import { hasPermission, principalOf } from '@iot/infra/http/principal.ts';
import { iso, pageOf, param, type ListSpec } from '../shared/paging.ts';

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

/** The operation log (spec §2): who did what, when and from where, in the caller's tenant; CSV export for auditors. */
export const oplogRoutes: RoutesPlugin = async (app, { db }) => {
  function specOf(request: FastifyRequest, q: { actor?: string; eventType?: string; from?: string; to?: string }): ListSpec {
    const spec: ListSpec = {
      select: 'l.*, u.username as actor_name',
      from: `rm_oplog l left join rm_users u on l.actor_kind = 'user' and u.id = l.actor_id`,
      where: ['l.tenant_id = $1'],
      params: [principalOf(request).tenantId],
      sortable: { occurredAt: 'l.occurred_at', eventType: 'l.event_type', actorId: 'l.actor_id' },
      defaultSort: 'l.occurred_at',
    };
    if (q.actor) spec.where.push(`(l.actor_id = ${param(spec.params, q.actor)} or u.username ilike ${param(spec.params, `%${q.actor}%`)})`);
    if (q.eventType) spec.where.push(`l.event_type ilike ${param(spec.params, `%${q.eventType}%`)}`);
    if (q.from) spec.where.push(`l.occurred_at >= ${param(spec.params, q.from)}`);
    if (q.to) spec.where.push(`l.occurred_at <= ${param(spec.params, q.to)}`);
    return spec;
  }

  async function exportCsv(
    request: FastifyRequest,
    reply: FastifyReply,
    q: Parameters<typeof specOf>[1] & { order: 'asc' | 'desc'; sort?: string },
  ) {
    const result = await pageOf(db, { page: 1, pageSize: EXPORT_LIMIT, order: q.order, sort: q.sort }, specOf(request, q), toOplogRow);
    const csv = stringify(result.rows, { header: true, columns: columns as string[] });
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="operation-log-${new Date().toISOString().slice(0, 10)}.csv"`)
      .send(`\uFEFF${csv}`);
  }

  const querystring = pageQuery.extend(oplogQuery.shape);

  app.get(
    '/api/auth/log',
    { config: { permission: perm.logList }, schema: { tags: ['log'], querystring, response: { 200: envelope(page(oplogRow)) } } },
    async (request, reply) => {
      const q = request.query;
      if (q.format === 'csv') {
        if (!hasPermission(principalOf(request), perm.logExport)) throw new DomainError('FORBIDDEN');
        return exportCsv(request, reply, q);
      }
      return ok(await pageOf(db, q, specOf(request, q), toOplogRow));
    },
  );

  app.get(
    '/api/auth/log/export',
    { config: { permission: perm.logExport }, schema: { tags: ['log'], querystring } },
    async (request, reply) => exportCsv(request, reply, request.query),
  );
};
