import { createClient } from '@clickhouse/client';
import { ClickHouseTimeSeriesStore } from './clickhouse.ts';
import type { RollupSchedule } from './rollup-job.ts';

/** The time-series store on a ClickHouse server (`CLICKHOUSE_URL`, e.g. http://user:pass@host:8123/db). */
export class ClickHouseServerTimeSeriesStore extends ClickHouseTimeSeriesStore {
  constructor(options: { url: string; rollups?: RollupSchedule }) {
    super(createClient({ url: options.url, application: 'iot-timeseries' }), 'clickhouse', undefined, true, options.rollups);
  }
}
