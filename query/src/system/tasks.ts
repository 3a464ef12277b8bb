import type { ScheduledJobRow, StatTaskFields, SystemOpsRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { forwardRetriesOf } from '@iot/projections/forward/read.ts';
import { statTasksPage } from '@iot/projections/stat/read.ts';
import { statTaskRuns } from '@iot/projections/stat/runs.ts';
import { statWindowName } from '@iot/projections/stat/scheduler.ts';

const ALL = { page: 1, pageSize: 10_000, order: 'asc', sort: 'createTime' } as const;
const FIVE_MINUTES = 5 * 60_000;

/**
 * When the window of `cycle` holding `at` ends, which is when the scheduler runs the task over it. Windows start on
 * local multiples of ten minutes, so in any zone (offsets are whole quarter hours) a boundary is a multiple of five
 * minutes: step by day, hour and five minutes while the window stays the same, then take the next five-minute mark.
 */
export function nextStatRun(cycle: StatTaskFields['cycle'], at: Date, timeZone: string): Date {
  const window = statWindowName(cycle, at, timeZone);
  let last = at.getTime();
  for (const step of [86_400_000, 3_600_000, FIVE_MINUTES])
    while (statWindowName(cycle, new Date(last + step), timeZone) === window) last += step;
  return new Date(Math.floor(last / FIVE_MINUTES) * FIVE_MINUTES + FIVE_MINUTES);
}

/** System → tasks (issue 19): every scheduled job of the tenant, read over the read models of the capabilities that own them. */
export const taskQueryHandlers: Pick<Handlers<SystemOpsRoutes>, 'systemTask.list'> = {
  async 'systemTask.list'({ query }, ctx) {
    const { db } = ctx.ports;
    const { tenantId } = callerOf(ctx);
    const now = new Date();
    const jobs: ScheduledJobRow[] = [];
    if (!query.kind || query.kind === 'statTask') {
      const [tasks, runs] = await Promise.all([statTasksPage(db, tenantId, {}, ALL), statTaskRuns(db, tenantId)]);
      for (const task of tasks.rows) {
        const enabled = task.status === 'enabled';
        const run = runs.get(task.id);
        jobs.push({
          id: `statTask:${task.id}`,
          kind: 'statTask',
          sourceId: task.id,
          name: task.name,
          schedule: task.cycle,
          timeZone: task.timeZone,
          status: task.status,
          // Alarm statistics are folded as they are read, never scheduled.
          nextRun: enabled && task.dataType !== 'alarm' ? nextStatRun(task.cycle, now, task.timeZone).toISOString() : null,
          lastRun: run?.lastRunAt?.toISOString() ?? null,
          lastResult: run?.lastResult ? (run.lastError ? `${run.lastResult}: ${run.lastError}` : run.lastResult) : null,
          durationMs: run?.durationMs ?? null,
          pending: null,
          canPause: enabled,
          canResume: !enabled,
          canRunNow: task.dataType !== 'alarm',
        });
      }
    }
    if (!query.kind || query.kind === 'forwardRetry')
      for (const retry of await forwardRetriesOf(db, tenantId))
        jobs.push({
          id: `forwardRetry:${retry.ruleId}`,
          kind: 'forwardRetry',
          sourceId: retry.ruleId,
          name: retry.ruleName ?? retry.ruleId,
          schedule: 'backoff',
          timeZone: null,
          status: 'pending',
          nextRun: retry.nextAt.toISOString(),
          lastRun: null,
          lastResult: retry.lastError,
          durationMs: null,
          pending: retry.pending,
          canPause: false,
          canResume: false,
          canRunNow: false,
        });
    return jobs;
  },
};
