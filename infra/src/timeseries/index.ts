import { join } from 'node:path';
import { ChdbTimeSeriesStore, type ChdbMemory } from './chdb.ts';
import type { TimeSeriesStore } from './port.ts';
import { ClickHouseServerTimeSeriesStore } from './server.ts';

export * from './port.ts';

/** A ClickHouse server when `clickhouseUrl` is set, else chDB in `${dataDir}/chdb`. Call once per process. */
export function createTimeSeriesStore(config: { clickhouseUrl?: string; dataDir: string; chdbMemory?: ChdbMemory }): TimeSeriesStore {
  if (config.clickhouseUrl) return new ClickHouseServerTimeSeriesStore({ url: config.clickhouseUrl });
  return new ChdbTimeSeriesStore({ path: join(config.dataDir, 'chdb'), memory: config.chdbMemory });
}
