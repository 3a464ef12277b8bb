import { DomainError, type SystemOpsRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { loadState } from '../handler.ts';
import { statTaskDecider, statTaskStream } from './decide.ts';

/**
 * System → tasks: "run now" of a statistic task. The run itself is the scheduler's (it holds the time series and the
 * device lists); the request is a row of its runs table, taken within seconds by whichever process looks first.
 * Alarm statistics are folded as they are read: nothing to run.
 */
export const statRunNowHandlers: Pick<Handlers<SystemOpsRoutes>, 'systemTask.run'> = {
  async 'systemTask.run'({ body }, ctx) {
    const { tenantId } = callerOf(ctx);
    const { state } = await loadState(ctx.ports.store, statTaskDecider, statTaskStream(tenantId, body.id));
    if (!state.exists || state.deleted || !state.fields) throw new DomainError('NOT_FOUND');
    if (state.fields.dataType === 'alarm') return { requested: false };
    await ctx.ports.db.query(
      `insert into stat_task_runs (task_id, tenant_id, requested_at) values ($1, $2, now())
       on conflict (task_id) do update set requested_at = now()`,
      [body.id, tenantId],
    );
    return { requested: true };
  },
};
