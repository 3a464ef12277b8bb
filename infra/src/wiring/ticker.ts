import type { Logger } from 'pino';
import type { Stops } from './stops.ts';

/**
 * Runs `run` every `everyMs`, one run at a time (a slow run delays the next, never overlaps it); a failed run is
 * logged and the next one still comes. Stopping waits for the run under way.
 */
export function startTicker(name: string, everyMs: number, run: () => Promise<void>, logger: Logger, stops: Stops): void {
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = run()
        .catch((err: unknown) => logger.error({ err }, `${name} failed`))
        .finally(schedule);
    }, everyMs);
  };
  schedule();
  stops.push(async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  });
}

/** A scheduler's tick over the window since its last successful tick: a failed window is asked for again, widened. */
export function sinceLastTick(tick: (previous: Date, now: Date) => Promise<unknown>): () => Promise<void> {
  let previous = new Date();
  return async () => {
    const now = new Date();
    await tick(previous, now);
    previous = now;
  };
}
