import type { StatTaskEvent } from '@iot/contracts';
import type { TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import { projection, type AnyProjection } from '../projection.ts';

/** A deleted task's results leave the time-series store with it (idempotent, so a replay repeats it harmlessly). */
export function statResultsReactor(timeseries: Pick<TimeSeriesStore, 'deleteStatResults'>): AnyProjection {
  return projection<StatTaskEvent>({
    name: 'reactor-stat-results',
    handles: ['StatTaskDeleted'],
    schema: 'select 1',
    tables: [],
    async apply(_tx, event) {
      if (event.type === 'StatTaskDeleted') await timeseries.deleteStatResults(event.metadata.tenantId, event.data.taskId);
    },
  });
}
