import type { Logger } from 'pino';
import type { Dispatch, DispatchMetadata } from '@iot/contracts/ports/dispatch.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { dueOtaWaves, pausedOtaDevices } from '@iot/projections/ota/read.ts';
import type { Stops } from './stops.ts';
import { startTicker } from './ticker.ts';

const BATCH = 200;

const systemStep = (tenantId: string, key: string): DispatchMetadata => ({
  tenantId,
  actor: { kind: 'system', id: 'ota-ticker' },
  correlationId: key,
  causationId: null,
  idempotencyKey: key,
});

/**
 * The rollouts' clock: starts a wave whose pause between waves is over, and resumes a paused device that is
 * reachable again (a reconnect the presence event raced, so that no device stays paused while online).
 */
export function startOtaTicker(db: Sql, dispatch: Dispatch, logger: Logger, stops: Stops, tickMs = 5_000): { tick(): Promise<void> } {
  let round = 0;
  const tick = async () => {
    round++;
    const now = new Date();
    for (const { tenantId, taskId } of await dueOtaWaves(db, now, BATCH))
      await dispatch(
        { type: 'StartNextOtaWave', taskId, at: now.toISOString() },
        systemStep(tenantId, `ota:tick:${taskId}:${now.toISOString()}`),
      );
    for (const { tenantId, taskId, deviceId } of await pausedOtaDevices(db, BATCH))
      await dispatch(
        { type: 'DeliverOtaOffer', taskId, deviceId, resume: true },
        systemStep(tenantId, `ota:sweep:${taskId}:${deviceId}:${round}`),
      );
  };
  startTicker('OTA ticker', tickMs, tick, logger, stops);
  return { tick };
}
