import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { createClient, type ClickHouseClientConfigOptions } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import { ClickHouseTimeSeriesStore } from './clickhouse.ts';

// On globalThis, not a module variable, so a second copy of this module (tests, bundlers) sees it too.
const OWNER = Symbol.for('@iot/infra/timeseries/chdb-owner');
type OwnerSlot = { [OWNER]?: string };

/**
 * The embedded time-series store: chDB in this process, through the same `@clickhouse/client`
 * and SQL as the server adapter.
 *
 * chDB binds one data directory per process and runs one query at a time, so this store is the
 * process's only owner of it: open it once at start and share it; a second open throws.
 *
 * Event loop: measured (chdb.int.test.ts), chDB runs queries on libuv's thread pool;
 * a 2 s aggregation left a 5 ms setInterval ticking (largest gap 8 ms). What does run on the event
 * loop is encoding inserts and decoding results (1M JSONEachRow rows: 2 s; inserts are RowBinary, cheaper), which
 * the port bounds (100k-row insert chunks, 10k-row history pages, aggregates of one row per bucket). A worker_threads owner is not an option: the chdb addon segfaults the
 * process when a worker that loaded it exits (chdb 3.4, Node 20).
 */
export class ChdbTimeSeriesStore extends ClickHouseTimeSeriesStore {
  readonly path: string;

  /** `table` is for benchmarks and tests; the product uses the default. */
  constructor(options: { path: string; table?: string }) {
    const path = resolve(options.path);
    const slot = globalThis as OwnerSlot;
    const owner = slot[OWNER];
    if (owner !== undefined) {
      throw new Error(
        `chDB is already open in this process at ${owner}; chDB binds one data directory per process: ` +
          `share the store created at start, or close it before opening ${path}`,
      );
    }
    mkdirSync(path, { recursive: true });
    // chdb 3.4 types its connection against @clickhouse/client-common 1.23.0, whose settings type
    // drifted from the copy bundled in @clickhouse/client 1.23.1; the runtime contract is the same.
    const connection = createChdbConnection({
      path,
    }) as unknown as ClickHouseClientConfigOptions['connection'];
    const client = createClient({ connection });
    super(client, 'chdb', options.table);
    slot[OWNER] = path;
    this.path = path;
  }

  override async close(): Promise<void> {
    try {
      await super.close();
    } finally {
      const slot = globalThis as OwnerSlot;
      if (slot[OWNER] === this.path) delete slot[OWNER];
    }
  }
}
