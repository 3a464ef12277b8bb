import type { Projection } from '../projection.ts';

/** The operation log: who did what, when and from where, for every event in the log (metadata only, never payloads). */
export const oplogProjection: Projection = {
  name: 'oplog',
  handles: 'all',
  tables: ['rm_oplog'],
  schema: `
    create table if not exists rm_oplog (
      event_id text primary key,
      position text not null,
      tenant_id text not null,
      actor_kind text not null,
      actor_id text not null,
      event_type text not null,
      stream text not null,
      ip text,
      correlation_id text not null,
      occurred_at timestamptz not null
    );
    create index if not exists rm_oplog_tenant on rm_oplog (tenant_id, occurred_at desc);
    create index if not exists rm_oplog_actor on rm_oplog (tenant_id, actor_id, occurred_at desc);`,
  async apply(tx, event) {
    const m = event.metadata;
    await tx.query(
      `insert into rm_oplog (event_id, position, tenant_id, actor_kind, actor_id, event_type, stream, ip, correlation_id, occurred_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) on conflict (event_id) do nothing`,
      [
        event.id,
        event.position,
        m.tenantId,
        m.actor.kind,
        m.actor.id,
        event.type,
        event.streamName,
        m.ip ?? null,
        m.correlationId,
        m.occurredAt,
      ],
    );
  },
};
