import type { Logger } from 'pino';
import type { Role } from '../config.ts';

/** What a start hands back to undo itself; stopped in reverse order. */
export type Stops = Array<() => Promise<void>>;

/** Runs the stops last first; a stop that fails is logged and the others still run. */
export const stopInReverse = (stops: Stops, logger: Logger) => async () => {
  for (const stop of stops.reverse()) await stop().catch((error: Error) => logger.error({ err: error }, 'stop failed'));
};

/** Which parts a process role runs. */
export const runs = (role: Role) => ({
  ingest: role === 'all' || role === 'ingest',
  projections: role === 'all' || role === 'projections',
  api: role === 'all' || role === 'api',
  timeseries: role === 'all' || role === 'ingest' || role === 'api',
});
