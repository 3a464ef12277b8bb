import type { Page, PageQuery, oplogSortable } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';

/** One event of the operation log as the oplog projection keeps it (rm_oplog): its metadata and its target's name. */
export type OplogRecord = {
  eventId: string;
  position: string;
  tenantId: string;
  actorKind: string;
  actorId: string;
  eventType: string;
  stream: string;
  targetName: string | null;
  ip: string | null;
  correlationId: string;
  occurredAt: Date;
};

const ENTRY = `event_id as "eventId", position, tenant_id as "tenantId", actor_kind as "actorKind", actor_id as "actorId",
  event_type as "eventType", stream, target_name as "targetName", ip, correlation_id as "correlationId", occurred_at as "occurredAt"`;

export interface OplogFilter {
  /** Done by this actor id, or by one of these users (those whose name matched). */
  actor?: { id: string; userIds: string[] };
  /** A part of the event type. */
  eventType?: string;
  /** Of this aggregate (the stream's category). */
  entityType?: string;
  /** Of the aggregate with this id, or whose name holds this text. */
  entity?: string;
  from?: string;
  to?: string;
}
/** The columns a list sorts by, for each name the route's query allows. */
const sortBy = { occurredAt: 'occurred_at', eventType: 'event_type', actorId: 'actor_id' } satisfies Record<
  (typeof oplogSortable)[number],
  string
>;

/** A page of a tenant's operation log, filtered; sorted as the route allows, newest first by default. */
export async function oplogPage(db: Sql, tenantId: string, filter: OplogFilter, page: PageQuery): Promise<Page<OplogRecord>> {
  const spec: ListSpec = {
    select: ENTRY,
    from: 'rm_oplog',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: sortBy,
    defaultSort: 'occurred_at',
  };
  const { where, params } = spec;
  if (filter.actor)
    where.push(
      `(actor_id = ${param(params, filter.actor.id)} or (actor_kind = 'user' and actor_id = any(${param(params, filter.actor.userIds)})))`,
    );
  if (filter.eventType) where.push(`event_type ilike ${param(params, `%${filter.eventType}%`)}`);
  if (filter.entityType) where.push(`split_part(stream, '-', 1) = ${param(params, filter.entityType)}`);
  if (filter.entity) {
    const literal = filter.entity.replace(/[\\%_]/g, '\\$&');
    where.push(`(stream like ${param(params, `%.${literal}`)} or target_name ilike ${param(params, `%${literal}%`)})`);
  }
  if (filter.from) where.push(`occurred_at >= ${param(params, filter.from)}`);
  if (filter.to) where.push(`occurred_at <= ${param(params, filter.to)}`);
  return pageRows<OplogRecord>(db, page, spec);
}

/** The tenant's latest operations, newest first: a range over the tenant index, without a page's total (the home dashboard). */
export async function recentOperations(db: Sql, tenantId: string, limit: number): Promise<OplogRecord[]> {
  return (
    await db.query<OplogRecord>(`select ${ENTRY} from rm_oplog where tenant_id = $1 order by occurred_at desc limit $2`, [tenantId, limit])
  ).rows;
}
