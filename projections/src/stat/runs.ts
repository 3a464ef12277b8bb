import type { Sql } from '@iot/contracts/ports/sql.ts';

/**
 * What the statistic scheduler records of its runs (System → tasks): the last run of each task with its result and
 * duration, and a "run now" asked from the screen, taken by the scheduler's next look. Operational state beside the
 * log, not a read model: a rebuild cannot bring runs back, and nothing else is derived from it.
 */
export const statTaskRunsSchema = `
create table stat_task_runs (
  task_id text primary key,
  tenant_id text not null,
  last_run_at timestamptz,
  last_result text,
  last_error text,
  duration_ms int,
  requested_at timestamptz
);
create index stat_task_runs_requested on stat_task_runs (requested_at) where requested_at is not null;`;

export type StatRunResult = 'success' | 'failed';

/** A task's run ended: its time, result and duration replace the last one's. */
export async function recordStatRun(
  db: Sql,
  run: { taskId: string; tenantId: string; at: Date; result: StatRunResult; error: string | null; durationMs: number },
): Promise<void> {
  await db.query(
    `insert into stat_task_runs (task_id, tenant_id, last_run_at, last_result, last_error, duration_ms) values ($1, $2, $3, $4, $5, $6)
     on conflict (task_id) do update set last_run_at = $3, last_result = $4, last_error = $5, duration_ms = $6`,
    [run.taskId, run.tenantId, run.at, run.result, run.error, run.durationMs],
  );
}

/** Takes the "run now" requests: each is answered once, whichever process looks first. */
export async function takeStatRunRequests(db: Sql): Promise<Array<{ taskId: string; tenantId: string }>> {
  return (
    await db.query<{ taskId: string; tenantId: string }>(
      `update stat_task_runs set requested_at = null where task_id in (
         select task_id from stat_task_runs where requested_at is not null for update skip locked)
       returning task_id as "taskId", tenant_id as "tenantId"`,
    )
  ).rows;
}

export type StatRunRecord = {
  lastRunAt: Date | null;
  lastResult: StatRunResult | null;
  lastError: string | null;
  durationMs: number | null;
  requested: boolean;
};

/** The last run of each statistic task of the tenant, by task id. */
export async function statTaskRuns(db: Sql, tenantId: string): Promise<Map<string, StatRunRecord>> {
  const rows = await db.query<StatRunRecord & { taskId: string }>(
    `select task_id as "taskId", last_run_at as "lastRunAt", last_result as "lastResult", last_error as "lastError",
       duration_ms as "durationMs", requested_at is not null as requested
     from stat_task_runs where tenant_id = $1`,
    [tenantId],
  );
  return new Map(rows.rows.map(({ taskId, ...run }) => [taskId, run]));
}
