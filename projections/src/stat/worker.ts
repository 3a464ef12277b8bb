import type { LiveFeed } from '@iot/contracts/ports/live.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import { createStatBackfiller } from './backfill.ts';
import type { StatTaskRecord } from './read.ts';
import { createStatScheduler } from './scheduler.ts';

/** How often the worker passes: a task asked to run now starts within it. */
export const STAT_PASS_MS = 1_000;
/** What each pass gives the backfills, after the runs: a chunk started by then is finished. */
const BACKFILL_BUDGET_MS = 2_000;
const MINUTE_MS = 60_000;

/**
 * The statistic tasks' one worker: each pass runs the tasks asked to run now (System → tasks), then, when a minute has
 * turned since its last look (every cycle ends on a whole minute), the tasks whose cycle ended since then, then the
 * backfills for what is left of its budget. One loop, so that none of the three waits on a timer of its own or runs
 * beside another on chDB's one query at a time.
 */
export function createStatWorker(deps: {
  db: Sql;
  timeseries: Pick<TimeSeriesStore, 'computeStat' | 'putStatResults'>;
  live?: LiveFeed;
  onError?: (task: StatTaskRecord, error: unknown, during: 'run' | 'backfill') => void;
  /** The instant the cycles are looked at from (now unless told). */
  since?: Date;
}) {
  const { db, timeseries, live, onError } = deps;
  const scheduler = createStatScheduler({ db, timeseries, onError: (task, error) => onError?.(task, error, 'run') });
  const backfiller = createStatBackfiller({ db, scheduler, live, onError: (task, error) => onError?.(task, error, 'backfill') });
  let previous = deps.since ?? new Date();
  return {
    scheduler,
    /** One pass at `now`: the tasks run on request and at their cycle's end (null: no minute turned), and the backfill chunks computed. */
    async pass(now: Date = new Date()): Promise<{ requested: string[]; ended: string[] | null; chunks: number }> {
      const requested = await scheduler.runRequested(now);
      let ended: string[] | null = null;
      if (Math.floor(now.getTime() / MINUTE_MS) !== Math.floor(previous.getTime() / MINUTE_MS)) {
        ended = await scheduler.tick(previous, now);
        // Only once the tick went through: a failed one is asked for again, over a window widened to the next pass.
        previous = now;
      }
      const chunks = await backfiller.step(BACKFILL_BUDGET_MS);
      return { requested, ended, chunks };
    },
  };
}
export type StatWorker = ReturnType<typeof createStatWorker>;
