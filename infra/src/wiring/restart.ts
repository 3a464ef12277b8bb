import type { Logger } from 'pino';
import type { Dispatch, DispatchMetadata } from '@iot/contracts/ports/dispatch.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { dueRestartTasks, expiredRestartTasks, pausedRestartDevices } from '@iot/projections/restart/read.ts';
import type { Stops } from './stops.ts';
import { startTicker } from './ticker.ts';

const BATCH = 200;

const systemStep = (tenantId: string, key: string): DispatchMetadata => ({
  tenantId,
  actor: { kind: 'system', id: 'restart-ticker' },
  correlationId: key,
  causationId: null,
  idempotencyKey: key,
});

/**
 * The restart tasks' clock: starts a task at its task time, sends the restart to a paused device that is reachable
 * again (it reconnected) before the expiry, and fails at the expiry the devices that never acknowledged.
 */
export function startRestartTicker(db: Sql, dispatch: Dispatch, logger: Logger, stops: Stops, tickMs = 5_000): { tick(): Promise<void> } {
  let round = 0;
  const tick = async () => {
    round++;
    const now = new Date();
    const at = now.toISOString();
    for (const { tenantId, taskId } of await dueRestartTasks(db, now, BATCH))
      await dispatch({ type: 'StartRestartTask', taskId, at }, systemStep(tenantId, `restart:start:${taskId}`));
    for (const { tenantId, taskId, deviceId } of await pausedRestartDevices(db, now, BATCH))
      await dispatch(
        { type: 'RetryRestartDevice', taskId, deviceId, at },
        systemStep(tenantId, `restart:retry:${taskId}:${deviceId}:${round}`),
      );
    for (const { tenantId, taskId } of await expiredRestartTasks(db, now, BATCH))
      await dispatch({ type: 'ExpireRestartTask', taskId, at }, systemStep(tenantId, `restart:expire:${taskId}`));
  };
  startTicker('restart ticker', tickMs, tick, logger, stops);
  return { tick };
}
