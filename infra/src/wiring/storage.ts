import path from 'node:path';
import type { Logger } from 'pino';
import { upcasters } from '@iot/contracts/upcasters.ts';
import type { Lookups } from '@iot/contracts/ports/lookups.ts';
import type { Config } from '../config.ts';
import { createPostgresEventStore } from '../event-store/postgres.ts';
import type { EventStore } from '../event-store/port.ts';
import { withUpcasting } from '../event-store/upcasting.ts';
import type { EngineHealth } from '../http/context.ts';
import { migrate } from '../migrate/migrate.ts';
import { commandOwners } from '../migrate/owners.ts';
import { startEmbeddedPostgres } from '../postgres/embedded.ts';
import { createSqlPool, PROJECTION_POOL_SIZE, type SqlPool } from '../postgres/sql.ts';
import { createLookups } from '../read-models/lookups.ts';
import { createTimeSeriesStore, type TimeSeriesStore } from '../timeseries/index.ts';
import type { Stops } from './stops.ts';

export interface Storage {
  /** The read models' database (and the write side's own tables). */
  db: SqlPool;
  /** Where PostgreSQL is (the embedded one's address when DATABASE_URL is unset): for pools of other threads. */
  databaseUrl: string;
  /** Connections of the projections' own, so that a burst of API requests cannot queue them out. */
  projectionDb: SqlPool;
  store: EventStore;
  lookups: Lookups;
  engines: EngineHealth[];
}

/** PostgreSQL (embedded unless DATABASE_URL), its migrations, and the event store (KurrentDB when EVENTSTORE_URL). */
export async function startStorage(config: Config, logger: Logger, stops: Stops): Promise<Storage> {
  let databaseUrl = config.DATABASE_URL;
  if (!databaseUrl) {
    const pg = await startEmbeddedPostgres({
      dataDir: path.join(config.DATA_DIR, 'postgres'),
      port: config.EMBEDDED_PG_PORT,
      log: (line) => logger.debug({ engine: 'postgres' }, line),
    });
    stops.push(() => pg.stop());
    databaseUrl = pg.url;
  }
  const db = createSqlPool(databaseUrl, config.PG_POOL_SIZE);
  const lookups = createLookups(db);
  await migrate(db, commandOwners);
  stops.push(() => db.end());
  const projectionDb = createSqlPool(databaseUrl, PROJECTION_POOL_SIZE);
  stops.push(() => projectionDb.end());
  const engineStore: EventStore = config.EVENTSTORE_URL
    ? await (await import('../event-store/kurrentdb.ts')).createKurrentEventStore({ url: config.EVENTSTORE_URL })
    : await createPostgresEventStore(db, { subscriptionPool: projectionDb });
  // Every read hands out events at their newest schema version.
  const store = withUpcasting(engineStore, upcasters);
  stops.push(() => store.close());
  const engines: EngineHealth[] = [
    { name: 'postgres', check: async () => (await db.query('select 1'), { ok: true }) },
    { name: `eventstore:${store.kind}`, check: () => store.health() },
  ];
  return { db, databaseUrl, projectionDb, store, lookups, engines };
}

/** The time-series store: chDB in-process, or a ClickHouse server when CLICKHOUSE_URL; `rollupOwner` runs the rollup job. */
export async function startTimeseries(config: Config, stops: Stops, engines: EngineHealth[], rollupOwner = true): Promise<TimeSeriesStore> {
  const ts = createTimeSeriesStore({
    clickhouseUrl: config.CLICKHOUSE_URL,
    dataDir: config.DATA_DIR,
    chdbMemory: {
      maxServerMemoryMb: config.CHDB_MAX_SERVER_MEMORY_MB,
      markCacheMb: config.CHDB_MARK_CACHE_MB,
      uncompressedCacheMb: config.CHDB_UNCOMPRESSED_CACHE_MB,
      indexCacheMb: config.CHDB_INDEX_CACHE_MB,
    },
    rollups: { everyMs: rollupOwner ? config.TIMESERIES_ROLLUP_EVERY_MS : 0, graceMs: config.TIMESERIES_ROLLUP_GRACE_MS },
  });
  await ts.migrate();
  stops.push(() => ts.close());
  engines.push({
    name: `timeseries:${ts.engine}`,
    check: async () => ts.health().then((h) => ({ ok: h.ok, detail: h.error ?? h.version })),
  });
  return ts;
}
