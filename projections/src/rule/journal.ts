import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { NodeTrace, RuleFailure } from './engine.ts';

/**
 * What the rule chains record of themselves (issue 19 "Observability"): node failures and the debug traces of the
 * nodes switched on. Bounded tables, not read models: written by the reactor as messages run (never from the event
 * log, so a rebuild cannot bring them back), trimmed to the newest rows, read by read.ts.
 */
export const ruleJournalSchema = `
create table rule_failures (
  id bigint generated always as identity primary key,
  tenant_id text not null,
  chain_id text not null,
  node_id text not null,
  node_name text not null,
  kind text not null,
  error text not null,
  message jsonb not null,
  path text[] not null,
  created_at timestamptz not null default now()
);
create index rule_failures_tenant on rule_failures (tenant_id, id desc);
create table rule_debug_traces (
  id bigint generated always as identity primary key,
  tenant_id text not null,
  chain_id text not null,
  node_id text not null,
  labels text[] not null,
  input jsonb not null,
  output jsonb not null,
  error text,
  created_at timestamptz not null default now()
);
create index rule_debug_traces_node on rule_debug_traces (tenant_id, chain_id, node_id, id desc);`;

/** Failures kept per tenant, and traces per node: the newest. */
export const FAILURES_KEPT = 5_000;
export const TRACES_KEPT = 100;
const FLUSH_MS = 50;

/** Writes failures and traces in batches off the message's path; a write that fails is handed to `onError`, never to the chain. */
export function createRuleJournal(db: Sql, onError: (error: unknown) => void) {
  let failures: RuleFailure[] = [];
  let traces: Array<{ tenantId: string; trace: NodeTrace }> = [];
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> = Promise.resolve();

  async function writeFailures(rows: RuleFailure[]) {
    await db.query(
      `insert into rule_failures (tenant_id, chain_id, node_id, node_name, kind, error, message, path)
       select t, c, n, nn, k, e, m, array(select jsonb_array_elements_text(p))
       from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::jsonb[]) as f(t, c, n, nn, k, e, m, p)`,
      [
        rows.map((f) => f.message.tenantId),
        rows.map((f) => f.chainId),
        rows.map((f) => f.nodeId),
        rows.map((f) => f.nodeName),
        rows.map((f) => f.kind),
        rows.map((f) => f.error),
        rows.map((f) => JSON.stringify(f.message)),
        rows.map((f) => JSON.stringify(f.path)),
      ],
    );
    for (const tenantId of new Set(rows.map((f) => f.message.tenantId)))
      await db.query(
        `delete from rule_failures where tenant_id = $1 and id < (select id from rule_failures where tenant_id = $1 order by id desc offset $2 limit 1)`,
        [tenantId, FAILURES_KEPT - 1],
      );
  }

  async function writeTraces(rows: Array<{ tenantId: string; trace: NodeTrace }>) {
    await db.query(
      `insert into rule_debug_traces (tenant_id, chain_id, node_id, labels, input, output, error)
       select t, c, n, array(select jsonb_array_elements_text(l)), i, o, e
       from unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::jsonb[], $6::jsonb[], $7::text[]) as r(t, c, n, l, i, o, e)`,
      [
        rows.map((r) => r.tenantId),
        rows.map((r) => r.trace.chainId),
        rows.map((r) => r.trace.nodeId),
        rows.map((r) => JSON.stringify(r.trace.labels)),
        rows.map((r) => JSON.stringify(r.trace.input)),
        rows.map((r) => JSON.stringify(r.trace.message)),
        rows.map((r) => r.trace.error),
      ],
    );
    const nodes = new Map(rows.map((r) => [`${r.tenantId}\0${r.trace.chainId}\0${r.trace.nodeId}`, r]));
    for (const { tenantId, trace } of nodes.values())
      await db.query(
        `delete from rule_debug_traces where tenant_id = $1 and chain_id = $2 and node_id = $3 and id < (
           select id from rule_debug_traces where tenant_id = $1 and chain_id = $2 and node_id = $3 order by id desc offset $4 limit 1)`,
        [tenantId, trace.chainId, trace.nodeId, TRACES_KEPT - 1],
      );
  }

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const f = failures;
    const t = traces;
    failures = [];
    traces = [];
    if (f.length === 0 && t.length === 0) return writing;
    writing = writing.then(async () => {
      try {
        if (f.length > 0) await writeFailures(f);
        if (t.length > 0) await writeTraces(t);
      } catch (error) {
        onError(error);
      }
    });
    return writing;
  }
  const later = () => {
    timer ??= setTimeout(() => void flush(), FLUSH_MS);
    timer.unref?.();
  };

  return {
    failure(failure: RuleFailure) {
      failures.push(failure);
      later();
    },
    trace(tenantId: string, trace: NodeTrace) {
      traces.push({ tenantId, trace });
      later();
    },
    /** Resolves once what was handed over is written. */
    flush,
  };
}
export type RuleJournal = ReturnType<typeof createRuleJournal>;
