import type { StoredEvent } from '@iot/contracts/ports/event-store.ts';
import type { Projection } from '../projection.ts';

/** The name an event gives its target (a user's username, a role's name, ...), if it gives one. */
const targetNameOf = (event: StoredEvent): string | null => {
  const d = event.data;
  // An alarm is named by its rule (or, entered by hand, by its variable): never by its id.
  for (const key of ['name', 'username', 'label', 'systemName', 'code', 'ruleName', 'variable']) {
    const value = d[key];
    if (typeof value === 'string' && value.length > 0) return value.slice(0, 128);
  }
  return null;
};

/**
 * An event without a name takes its stream's last named row: without this index that look-up walked every row of a
 * stream whose events carry no name (a rollout's device stream, one row per progress report).
 */
const namedIndex = `create index if not exists rm_oplog_stream_named on rm_oplog (stream, occurred_at desc) where target_name is not null;`;

/**
 * The operation log: who did what, when and from where, for every event in the log: its metadata and the
 * name of its target (for "Menu · Users" rather than a stream id), never the rest of the payload.
 */
export const oplogProjection: Projection = {
  name: 'oplog',
  handles: 'all',
  tables: ['rm_oplog'],
  schema: `
    create table rm_oplog (
      event_id text primary key,
      position text not null,
      tenant_id text not null,
      actor_kind text not null,
      actor_id text not null,
      event_type text not null,
      stream text not null,
      target_name text,
      ip text,
      correlation_id text not null,
      occurred_at timestamptz not null
    );
    create index rm_oplog_tenant on rm_oplog (tenant_id, occurred_at desc);
    create index rm_oplog_actor on rm_oplog (tenant_id, actor_id, occurred_at desc);
    ${namedIndex}`,
  migrations: [
    { version: 2, name: "a stream's last target name, one index row away", sql: namedIndex },
    // Every look-up by stream asks for a named row, which the partial index answers: the whole one was only written to
    // (an index insert per event of the platform, 100,000 in a 100k device import).
    { version: 3, name: 'the whole stream index, which no query used', sql: 'drop index if exists rm_oplog_stream;' },
  ],
  // Every event of the platform passes here: a batch goes in as one insert.
  async applyBatch(tx, events) {
    // An event without a name (UserStopped, ...) takes its stream's last one: earlier in this batch, else stored.
    const latest = new Map<string, string>();
    const rows = events.map((event) => {
      const m = event.metadata;
      const name = targetNameOf(event) ?? latest.get(event.streamName) ?? null;
      if (name) latest.set(event.streamName, name);
      return {
        event_id: event.id,
        position: event.position,
        tenant_id: m.tenantId,
        actor_kind: m.actor.kind,
        actor_id: m.actor.id,
        event_type: event.type,
        stream: event.streamName,
        target_name: name,
        ip: m.ip ?? null,
        correlation_id: m.correlationId,
        occurred_at: m.occurredAt,
      };
    });
    await tx.query(
      `insert into rm_oplog (event_id, position, tenant_id, actor_kind, actor_id, event_type, stream, target_name, ip, correlation_id, occurred_at)
       select r.event_id, r.position, r.tenant_id, r.actor_kind, r.actor_id, r.event_type, r.stream,
         coalesce(r.target_name, (select o.target_name from rm_oplog o where o.stream = r.stream and o.target_name is not null
                                  order by o.occurred_at desc limit 1)),
         r.ip, r.correlation_id, r.occurred_at
       from jsonb_to_recordset($1::jsonb) as r(event_id text, position text, tenant_id text, actor_kind text, actor_id text,
         event_type text, stream text, target_name text, ip text, correlation_id text, occurred_at timestamptz)
       on conflict (event_id) do nothing`,
      [JSON.stringify(rows)],
    );
  },
  async apply(tx, event) {
    await this.applyBatch!(tx, [event]);
  },
};
