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

/** When each chain last ran a message: one row per chain, moved forward at most once a second (the rule list's "last triggered"). */
export const ruleChainRunsSchema = `
create table rule_chain_runs (
  tenant_id text not null,
  chain_id text not null,
  last_at timestamptz not null,
  primary key (tenant_id, chain_id)
);`;

/** Failures kept per tenant, and traces per node: the newest. */
export const FAILURES_KEPT = 5_000;
export const TRACES_KEPT = 100;
const FLUSH_MS = 50;
/** Runs are counted in memory and their times written this often: the root chain runs on every message. */
const RUNS_FLUSH_MS = 1_000;

/** Writes failures and traces in batches off the message's path; a write that fails is handed to `onError`, never to the chain. */
export function createRuleJournal(db: Sql, onError: (error: unknown) => void) {
  let failures: RuleFailure[] = [];
  let traces: Array<{ tenantId: string; trace: NodeTrace }> = [];
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> = Promise.resolve();
  /** The latest run of each chain not yet written, by `tenant\0chain`. */
  let runs = new Map<string, number>();
  let runsTimer: NodeJS.Timeout | null = null;

  async function writeRuns(rows: Map<string, number>) {
    const keys = [...rows.keys()].map((k) => k.split('\0'));
    await db.query(
      `insert into rule_chain_runs (tenant_id, chain_id, last_at)
       select t, c, to_timestamp(ms / 1000.0) from unnest($1::text[], $2::text[], $3::float8[]) as r(t, c, ms)
       on conflict (tenant_id, chain_id) do update set last_at = greatest(rule_chain_runs.last_at, excluded.last_at)`,
      [keys.map((k) => k[0]), keys.map((k) => k[1]), [...rows.values()]],
    );
  }

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
    if (runsTimer) clearTimeout(runsTimer);
    timer = null;
    runsTimer = null;
    const f = failures;
    const t = traces;
    const r = runs;
    failures = [];
    traces = [];
    runs = new Map();
    if (f.length === 0 && t.length === 0 && r.size === 0) return writing;
    writing = writing.then(async () => {
      try {
        if (f.length > 0) await writeFailures(f);
        if (t.length > 0) await writeTraces(t);
        if (r.size > 0) await writeRuns(r);
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
    /** A chain ran a message now. */
    ran(tenantId: string, chainId: string, at = Date.now()) {
      runs.set(`${tenantId}\0${chainId}`, at);
      if (!runsTimer) {
        runsTimer = setTimeout(() => void flush(), RUNS_FLUSH_MS);
        runsTimer.unref?.();
      }
    },
    /** Resolves once what was handed over is written. */
    flush,
  };
}
export type RuleJournal = ReturnType<typeof createRuleJournal>;
