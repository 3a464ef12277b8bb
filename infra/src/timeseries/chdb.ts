import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { createClient, type ClickHouseClientConfigOptions } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import { Session } from 'chdb';
import { ClickHouseTimeSeriesStore } from './clickhouse.ts';
import type { RollupSchedule } from './rollup-job.ts';

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
/**
 * What chDB may hold (issue 23, "Memory"): ClickHouse sizes its caches for a server (5 GB each for marks, primary
 * index and index marks) and lets queries take 90% of the RAM; in a process that shares a small VM with the rest
 * of the platform they are bounded. Megabytes; 0 leaves ClickHouse's own default.
 */
export interface ChdbMemory {
  /** The engine's whole memory (`max_server_memory_usage`): a query past it fails, the process lives. */
  maxServerMemoryMb?: number;
  /** `mark_cache_size`: the marks of recently read parts. */
  markCacheMb?: number;
  /** `uncompressed_cache_size` (off unless a query asks for `use_uncompressed_cache`). */
  uncompressedCacheMb?: number;
  /** `primary_index_cache_size` and `index_mark_cache_size` each. */
  indexCacheMb?: number;
}
export const CHDB_MEMORY_DEFAULTS: Required<ChdbMemory> = {
  maxServerMemoryMb: 1024,
  markCacheMb: 64,
  uncompressedCacheMb: 0,
  indexCacheMb: 32,
};

/** The engine's command-line settings for the bounds (server settings: given when the engine starts, not by SET). */
export function chdbMemoryArgs(memory: ChdbMemory = {}): string[] {
  const m = { ...CHDB_MEMORY_DEFAULTS };
  for (const [key, value] of Object.entries(memory) as [keyof ChdbMemory, number | undefined][]) if (value !== undefined) m[key] = value;
  const mb = (n: number) => String(Math.round(n * 1024 * 1024));
  const args: string[] = [];
  if (m.maxServerMemoryMb > 0) args.push(`--max_server_memory_usage=${mb(m.maxServerMemoryMb)}`);
  if (m.markCacheMb > 0) args.push(`--mark_cache_size=${mb(m.markCacheMb)}`);
  args.push(`--uncompressed_cache_size=${mb(m.uncompressedCacheMb)}`);
  if (m.indexCacheMb > 0) args.push(`--primary_index_cache_size=${mb(m.indexCacheMb)}`, `--index_mark_cache_size=${mb(m.indexCacheMb)}`);
  return args;
}

export class ChdbTimeSeriesStore extends ClickHouseTimeSeriesStore {
  readonly path: string;
  /** Opened first, with the memory bounds: the process's one engine starts with them, and the client's connection shares it. */
  private readonly engineSession: Session;

  /** `table` is for benchmarks and tests; the product uses the default. */
  constructor(options: { path: string; table?: string; memory?: ChdbMemory; rollups?: RollupSchedule }) {
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
    const engineSession = new Session(path, { connectionArgs: chdbMemoryArgs(options.memory) });
    // chdb 3.4 types its connection against @clickhouse/client-common 1.23.0, whose settings type
    // drifted from the copy bundled in @clickhouse/client 1.23.1; the runtime contract is the same.
    const connection = createChdbConnection({
      path,
    }) as unknown as ClickHouseClientConfigOptions['connection'];
    const client = createClient({ connection });
    super(client, 'chdb', options.table, true, options.rollups);
    slot[OWNER] = path;
    this.path = path;
    this.engineSession = engineSession;
  }

  override async close(): Promise<void> {
    try {
      await super.close();
      this.engineSession.close();
    } finally {
      const slot = globalThis as OwnerSlot;
      if (slot[OWNER] === this.path) delete slot[OWNER];
    }
  }
}
