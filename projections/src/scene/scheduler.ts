import { Cron } from 'croner';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { runScene, type SceneEnginePorts } from './engine.ts';
import { enabledScenesWith, type SceneRecord } from './read.ts';

/** Fire times of one trigger one tick may run: a process back from a long pause does not replay a day of schedules. */
const MAX_FIRES_PER_TICK = 10;

/** The fire times of a cron schedule in (after, until], oldest first, at most `max`. */
export function fireTimes(cron: string, timeZone: string, after: Date, until: Date, max = MAX_FIRES_PER_TICK): Date[] {
  const schedule = new Cron(cron, { timezone: timeZone, paused: true });
  const out: Date[] = [];
  for (let next = schedule.nextRun(after); next && next <= until; next = schedule.nextRun(next)) {
    out.push(next);
    if (out.length > max) out.shift();
  }
  return out;
}

/** The run of a fire time: the same id in every process, so that only one of them claims it. */
export const timingRunId = (sceneId: string, trigger: number, fireAt: Date) => `${sceneId}.t${trigger}.${fireAt.getTime()}`;

/**
 * Runs the timing triggers of the enabled scenes whose fire times fell between two ticks. Every process that runs
 * a scheduler computes the same runs; each run is claimed in the event store (a stream that must not exist yet),
 * so each fire time runs once whichever process claims it first.
 */
export function createSceneScheduler(deps: { db: Sql; ports: SceneEnginePorts; onError?: (scene: SceneRecord, error: unknown) => void }) {
  return {
    /** Runs the fires in (previous, now]; answers the run ids this process ran (the others it found claimed). */
    async tick(previous: Date, now: Date): Promise<string[]> {
      const ran: string[] = [];
      for (const scene of await enabledScenesWith(deps.db, 'timing')) {
        for (const [i, trigger] of scene.triggers.entries()) {
          if (trigger.type !== 'timing') continue;
          for (const fireAt of fireTimes(trigger.cron, trigger.timeZone, previous, now)) {
            const runId = timingRunId(scene.id, i, fireAt);
            try {
              const result = await runScene(deps.ports, scene, {
                triggerType: 'timing',
                content: `${trigger.cron} (${trigger.timeZone}) @ ${fireAt.toISOString()}`,
                runId,
              });
              if (result) ran.push(runId);
            } catch (error) {
              deps.onError?.(scene, error);
            }
          }
        }
      }
      return ran;
    },
  };
}
export type SceneScheduler = ReturnType<typeof createSceneScheduler>;
