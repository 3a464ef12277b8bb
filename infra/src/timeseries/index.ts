import { join } from 'node:path';
import { ChdbTimeSeriesStore, type ChdbMemory } from './chdb.ts';
import type { TimeSeriesStore } from './port.ts';
import type { RollupSchedule } from './rollup-job.ts';
import { ClickHouseServerTimeSeriesStore } from './server.ts';

export * from './port.ts';

/** A ClickHouse server when `clickhouseUrl` is set, else chDB in `${dataDir}/chdb`. Call once per process. */
export function createTimeSeriesStore(config: {
  clickhouseUrl?: string;
  dataDir: string;
  chdbMemory?: ChdbMemory;
  rollups?: RollupSchedule;
}): TimeSeriesStore {
  if (config.clickhouseUrl) return new ClickHouseServerTimeSeriesStore({ url: config.clickhouseUrl, rollups: config.rollups });
  return new ChdbTimeSeriesStore({ path: join(config.dataDir, 'chdb'), memory: config.chdbMemory, rollups: config.rollups });
}
