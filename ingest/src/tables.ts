import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { DeadLetter } from './intake.ts';

/** The intake's own tables: messages it could not take, and each device's newest report. */
export const deadLettersSchema = `
create table ingest_dead_letters (
  id bigint generated always as identity primary key,
  tenant_id text,
  device_id text,
  sn text,
  topic text not null,
  reason text not null,
  payload text not null,
  at timestamptz not null
);
create index ingest_dead_letters_tenant on ingest_dead_letters (tenant_id, at desc);`;

export const reportsSchema = `
create table device_reports (
  device_id text primary key,
  tenant_id text not null,
  last_report_at timestamptz not null
);`;

/** When a report last arrived, by the database's clock (the report's own time may be the device's, or old). */
export const reportsSeenAt = `alter table device_reports add column seen_at timestamptz;`;

/** NUL cannot be stored in PostgreSQL text; a dead letter keeps the rest of what the device sent. */
const storable = (text: string | null) => (text === null ? null : text.replace(/\0/g, '\uFFFD').replace(/[\uD800-\uDFFF]/g, '\uFFFD'));

/**
 * Buffers writes of the intake's tables and flushes them every `everyMs` in one statement each: a flood of
 * bad messages costs one insert a second, and at most `maxBuffered` dead letters wait (beyond, counted only).
 */
export function createIntakeTables(db: Sql, options: { everyMs?: number; maxBuffered?: number; onError?: (e: unknown) => void } = {}) {
  const maxBuffered = options.maxBuffered ?? 10_000;
  let letters: DeadLetter[] = [];
  let dropped = 0;
  let reports = new Map<string, { tenantId: string; at: Date }>();
  const flush = async () => {
    const [l, r] = [letters, reports];
    letters = [];
    reports = new Map();
    if (l.length > 0)
      await db.query(
        `insert into ingest_dead_letters (tenant_id, device_id, sn, topic, reason, payload, at)
         select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])`,
        [
          l.map((x) => x.tenantId),
          l.map((x) => x.deviceId),
          l.map((x) => storable(x.sn)),
          l.map((x) => storable(x.topic)),
          l.map((x) => storable(x.reason)),
          l.map((x) => storable(x.payload)),
          l.map((x) => x.at),
        ],
      );
    if (r.size > 0)
      await db.query(
        `insert into device_reports (device_id, tenant_id, last_report_at, seen_at)
         select *, now() from unnest($1::text[], $2::text[], $3::timestamptz[])
         on conflict (device_id) do update set last_report_at = greatest(device_reports.last_report_at, excluded.last_report_at), seen_at = now()`,
        [[...r.keys()], [...r.values()].map((v) => v.tenantId), [...r.values()].map((v) => v.at)],
      );
  };
  const timer = setInterval(() => void flush().catch(options.onError ?? (() => {})), options.everyMs ?? 1_000);
  timer.unref();
  return {
    deadLetter(letter: DeadLetter) {
      if (letters.length >= maxBuffered) dropped += 1;
      else letters.push(letter);
    },
    report(deviceId: string, tenantId: string, at: Date) {
      const seen = reports.get(deviceId);
      // Changed in place: every message of every device passes here.
      if (!seen) reports.set(deviceId, { tenantId, at });
      else if (seen.at < at) {
        seen.tenantId = tenantId;
        seen.at = at;
      }
    },
    dropped: () => dropped,
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
}
