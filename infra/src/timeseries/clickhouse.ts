import type { ClickHouseClient } from '@clickhouse/client';
import { WriteBatcher } from '@iot/ingest/batcher.ts';
import type {
  AggregateFn,
  AggregatePoint,
  AggregateQuery,
  AggregateRow,
  AggregateRowsQuery,
  EnergyPoint,
  EnergyQuery,
  HistoryPage,
  HistoryQuery,
  InsertOptions,
  LatestQuery,
  SampleCountQuery,
  HistoryBucket,
  StatComputation,
  StatResultPoint,
  StatResultQuery,
  TelemetryQuality,
  TelemetryRow,
  TimeSeriesHealth,
  TimeSeriesStore,
} from './port.ts';
import { rm, writeFile } from 'node:fs/promises';
import {
  encodeRowBinary,
  removeOrphanedRowBinaryFiles,
  retentionOf,
  ROW_BINARY_COLUMN_NAMES,
  ROW_BINARY_COLUMNS,
  rowBinaryFile,
} from './rowbinary.ts';
import { ROLLUP_SCHEDULE_DEFAULTS, RollupJob, type RollupSchedule } from './rollup-job.ts';
import {
  RECEIVED_INDEX,
  receivedIndexDdl,
  rolledRows,
  rollupMigrations,
  rollupSelect,
  rollupFeedDdl,
  rollupFoldDdl,
  rollupTableDdl,
  rollupWatermarkDdl,
  rollups,
  SAMPLE_COUNTS_DAYS,
  sampleCountsDdl,
  sampleCountsSelect,
  TELEMETRY_TABLE,
  dedupSettingDdl,
  mergeSettingDdl,
  telemetryMigrations,
  telemetryTableDdl,
  watermarkOf,
  type Rollup,
} from './schema.ts';
import { STAT_RESULTS_TABLE, statInsertSql, statParams, statResultsDdl, statRollupFor } from './stat.ts';

/** A history page larger than this is an export, not a page: stream it elsewhere. */
export const MAX_HISTORY_LIMIT = 10_000;
/** ClickHouse advises inserts of 10k-100k rows: each is a part to merge, and chDB merges many small ones at a cost. */
const MAX_ROWS_PER_INSERT = 100_000;
/** About this many rows of `aggregateRows` are read at once (a slice of whole days of the range). */
const ROWS_PER_SLICE = 50_000;
const DAY_MS = 86_400_000;

/** A telemetry row as the table stores it. */
export interface TelemetryDbRow {
  tenant_id: string;
  device_id: string;
  product_id: string;
  variable: string;
  /** 'YYYY-MM-DD hh:mm:ss.sss' in UTC. */
  ts: string;
  value: number | null;
  text: string | null;
  quality: TelemetryQuality;
  raw: string | null;
  /** Days kept, 0 for ever. */
  retention_days: number;
}

// Closed sets mapped to SQL fragments: the only SQL built from input; every value is a {name:Type} parameter.
const bucketStart: Record<HistoryBucket, string> = {
  '10m': 'toStartOfInterval(ts, INTERVAL 10 MINUTE, {tz:String})',
  '15m': 'toStartOfInterval(ts, INTERVAL 15 MINUTE, {tz:String})',
  '30m': 'toStartOfInterval(ts, INTERVAL 30 MINUTE, {tz:String})',
  '1h': 'toStartOfInterval(ts, INTERVAL 1 HOUR, {tz:String})',
  '12h': 'toStartOfInterval(ts, INTERVAL 12 HOUR, {tz:String})',
  '1d': 'toStartOfDay(ts, {tz:String})',
  '1w': 'toMonday(ts, {tz:String})',
  '1M': 'toStartOfMonth(ts, {tz:String})',
};

const fold: Record<AggregateFn, string> = {
  avg: 'avg(value)',
  sum: 'sum(value)',
  max: 'max(value)',
  min: 'min(value)',
  count: 'count(value)',
  first: 'argMin(value, ts)',
  last: 'argMax(value, ts)',
  distinctCount: 'uniqExact(value)',
  diff: 'argMax(value, ts) - argMin(value, ts)',
};

/** The statistics a rollup keeps, folded from its states. */
type RollupFn = 'avg' | 'sum' | 'max' | 'min' | 'count' | 'first' | 'last' | 'diff';
const foldRollup: Record<RollupFn, string> = {
  avg: 'avgMerge(avg_s)',
  sum: 'sum(sum_s)',
  max: 'max(max_s)',
  min: 'min(min_s)',
  count: 'sum(cnt_s)',
  first: 'argMinMerge(first_s)',
  last: 'argMaxMerge(last_s)',
  diff: 'argMaxMerge(last_s) - argMinMerge(first_s)',
};
const bucketMinutes: Record<HistoryBucket, number> = {
  '10m': 10,
  '15m': 15,
  '30m': 30,
  '1h': 60,
  '12h': 720,
  '1d': 1440,
  '1w': 10080,
  '1M': 43200,
};

/** Minutes east of UTC of a time zone at an instant. */
function offsetMinutes(timeZone: string, at: Date): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  })
    .formatToParts(at)
    .reduce<Record<string, number>>((acc, p) => (p.type === 'literal' ? acc : { ...acc, [p.type]: Number(p.value) }), {});
  const local = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!);
  return Math.round((local - Math.floor(at.getTime() / 60_000) * 60_000) / 60_000);
}

/**
 * The rollup that answers a statistic exactly, or null for the raw table: the statistic must be one the
 * rollup keeps, the range must hold at least one whole step of it (the parts of the range before the first
 * and after the last whole step are folded from the raw samples, in the same query), and the query's buckets
 * (in its time zone) must be whole rollup buckets: the hourly one only where the zone's offset is whole hours.
 */
function rollupFor(query: Pick<AggregateQuery, 'fn' | 'bucket' | 'timeZone' | 'from' | 'to'>): Rollup | null {
  if (!(query.fn in foldRollup)) return null;
  const tz = query.timeZone ?? 'UTC';
  for (const rollup of [...rollups].reverse()) {
    const stepMin = rollup.stepMs / 60_000;
    if (bucketMinutes[query.bucket] < stepMin || bucketMinutes[query.bucket] % stepMin !== 0) continue;
    const { lo, hi } = wholeSteps(query, rollup);
    if (lo >= hi) continue;
    let zone: number[];
    try {
      zone = [offsetMinutes(tz, query.from), offsetMinutes(tz, query.to)];
    } catch {
      return null;
    }
    if (zone.every((m) => m % stepMin === 0)) return rollup;
  }
  return null;
}

/** The whole rollup steps within the range: [lo, hi) in epoch ms. */
function wholeSteps(query: Pick<AggregateQuery, 'from' | 'to'>, rollup: Rollup): { lo: number; hi: number } {
  return {
    lo: Math.ceil(query.from.getTime() / rollup.stepMs) * rollup.stepMs,
    hi: Math.floor(query.to.getTime() / rollup.stepMs) * rollup.stepMs,
  };
}

const inRange = `tenant_id = {tenantId:String}
  AND ts >= fromUnixTimestamp64Milli({fromMs:Int64}, 'UTC')
  AND ts < fromUnixTimestamp64Milli({toMs:Int64}, 'UTC')`;

/**
 * The time-series port over a `@clickhouse/client`: the same SQL whether the client talks to
 * chDB in-process or to a ClickHouse server.
 */
export class ClickHouseTimeSeriesStore implements TimeSeriesStore {
  private readonly writes: WriteBatcher<TelemetryRow>;
  /** Feeds the rollups (none for a bare table); reads of the rollups go through its `reading`. */
  readonly rollupJob: RollupJob | null;
  /** Names the RowBinary files of this store's inserts. */
  private fileSeq = 0;
  private closed = false;

  constructor(
    /** Exposed for infra-internal tools (benchmarks, migrations); not part of the port. */
    readonly client: ClickHouseClient,
    readonly engine: 'chdb' | 'clickhouse',
    readonly table: string = TELEMETRY_TABLE,
    /** The 5-minute and hourly rollups (off for a benchmark's bare table). */
    private readonly withRollups = true,
    rollupSchedule: RollupSchedule = ROLLUP_SCHEDULE_DEFAULTS,
  ) {
    this.writes = new WriteBatcher((rows) => this.insertDbRows(rows), MAX_ROWS_PER_INSERT);
    this.rollupJob = withRollups ? new RollupJob(client, table, rollupSchedule, engine === 'chdb') : null;
  }

  async migrate(): Promise<void> {
    if (this.engine === 'chdb') removeOrphanedRowBinaryFiles();
    await this.client.command({ query: telemetryTableDdl(this.table, this.withRollups) });
    await this.client.command({ query: dedupSettingDdl(this.table) });
    if (await this.knowsTableSetting('merge_selector_base')) await this.client.command({ query: mergeSettingDdl(this.table) });
    for (const query of telemetryMigrations(this.table, await this.shapeOf(this.table))) await this.alter(query);
    await this.client.command({ query: statResultsDdl(this.statResultsTable) });
    if (!this.rollupJob) return;
    await this.migrateReceivedIndex();
    // An older release fed the rollups by materialized views on every insert: the job does now (rollup-job.ts).
    for (const view of ['1h', '5m', 'counts']) await this.client.command({ query: `DROP VIEW IF EXISTS ${this.table}_${view}_mv` });
    if (!(await this.exists(`${this.table}_rolled`))) {
      // Every sample stored so far is in the rollups (by the views, or by the backfills below): the job starts now.
      await this.client.command({ query: rollupWatermarkDdl(this.table) });
      await this.client.command({ query: `INSERT INTO ${this.table}_rolled (wm, next) SELECT now64(3), now64(3)` });
    }
    const rolled = `received_at < ${watermarkOf(this.table)}`;
    await this.migrateSampleCounts(rolled);
    for (const rollup of rollups) {
      const target = `${this.table}_${rollup.suffix}`;
      if (await this.exists(target)) {
        await this.client.command({ query: dedupSettingDdl(target) });
        for (const query of rollupMigrations(target, await this.shapeOf(target))) await this.alter(query);
      } else {
        await this.client.command({ query: rollupTableDdl(this.table, rollup) });
        // Rows stored before the rollup existed (an upgraded deployment): folded in once, up to the job's watermark.
        await this.client.command({ query: `INSERT INTO ${target} ${rollupSelect(this.table, rollup, rolled)}` });
      }
    }
    // The previous release's staging table, replaced by the feed and its views (schema.ts `rollupFeedDdl`).
    await this.client.command({ query: `DROP TABLE IF EXISTS ${this.table}_rollup_stage` });
    await this.client.command({ query: rollupFeedDdl(this.table) });
    for (const rollup of rollups) await this.client.command({ query: rollupFoldDdl(this.table, rollup) });
    await this.rollupJob.start();
  }

  /** The rollup job's index on the receipt time; built for the parts of an older release in the background. */
  private async migrateReceivedIndex(): Promise<void> {
    const [has] = await this.select<{ n: string | number }>(
      'SELECT count() AS n FROM system.data_skipping_indices WHERE database = currentDatabase() AND table = {table:String} AND name = {name:String}',
      { table: this.table, name: RECEIVED_INDEX },
    );
    if (Number(has?.n ?? 0) > 0) return;
    await this.client.command({ query: receivedIndexDdl(this.table) });
    await this.client.command({ query: `ALTER TABLE ${this.table} MATERIALIZE INDEX ${RECEIVED_INDEX}` });
  }

  /** Whether the engine has a MergeTree table setting (a server of an older release may not). */
  private async knowsTableSetting(name: string): Promise<boolean> {
    const rows = await this.select<{ n: number }>('SELECT count() AS n FROM system.merge_tree_settings WHERE name = {name:String}', {
      name,
    });
    return Number(rows[0]?.n ?? 0) > 0;
  }

  private async exists(table: string): Promise<boolean> {
    const rows = await this.select<{ result: number }>(`EXISTS TABLE ${table}`, {});
    return Number(rows[0]?.result ?? 0) === 1;
  }

  /** The per-second sample counts; made once with the last days' rolled samples counted. */
  private async migrateSampleCounts(rolled: string): Promise<void> {
    const target = `${this.table}_counts`;
    if (await this.exists(target)) return;
    await this.client.command({ query: sampleCountsDdl(this.table) });
    await this.client.command({
      query: `INSERT INTO ${target} ${sampleCountsSelect(this.table, `WHERE ts >= now() - toIntervalDay(${SAMPLE_COUNTS_DAYS}) AND ${rolled}`)}`,
    });
  }

  /**
   * Rolls up every sample stored so far (the bucket still open included: later samples add to it). For tests and
   * benchmarks that look into the rollup tables themselves; the port's reads need no flush.
   */
  async flushRollups(): Promise<void> {
    this.assertOpen();
    await this.writes.flush();
    await this.rollupJob?.run(true);
  }

  /** A read of the rollups, never in the middle of a rollup run. */
  private rollupRead<T>(read: () => Promise<T>): Promise<T> {
    return this.rollupJob ? this.rollupJob.reading(read) : read();
  }

  async insertTelemetry(rows: TelemetryRow[], options: InsertOptions = {}): Promise<void> {
    this.assertOpen();
    const { dedupToken } = options;
    if (dedupToken === undefined) return this.writes.enqueue(rows.map(checkedRow));
    // Not group-committed with others: a replay must repeat exactly this insert for its token to match.
    for (const row of rows) checkedRow(row);
    if (rows.length === 0) return;
    // One chunk is the caller's own array: a batch the journal encoded already is not encoded again (encodeRowBinary).
    if (rows.length <= MAX_ROWS_PER_INSERT) return this.insertDbRows(rows, dedupToken);
    for (let start = 0, part = 0; start < rows.length; start += MAX_ROWS_PER_INSERT, part++) {
      await this.insertDbRows(rows.slice(start, start + MAX_ROWS_PER_INSERT), part === 0 ? dedupToken : `${dedupToken}.${part}`);
    }
  }

  async queryHistory(query: HistoryQuery): Promise<HistoryPage> {
    this.assertOpen();
    if (!Number.isInteger(query.limit) || query.limit < 0 || query.limit > MAX_HISTORY_LIMIT) {
      throw new RangeError(`history limit must be an integer from 0 to ${MAX_HISTORY_LIMIT}, got ${query.limit}`);
    }
    if (!Number.isInteger(query.offset) || query.offset < 0) {
      throw new RangeError(`history offset must be a non-negative integer, got ${query.offset}`);
    }
    const direction = query.order === 'desc' ? 'DESC' : 'ASC';
    const where = `${inRange} AND device_id = {deviceId:String} AND variable = {variable:String}`;
    const params = {
      ...rangeParams(query.tenantId, query.from, query.to),
      deviceId: query.deviceId,
      variable: query.variable,
    };
    const [rows, counted] = await Promise.all([
      this.select<HistoryDbRow>(
        `SELECT device_id, product_id, variable, toUnixTimestamp64Milli(ts) AS ts_ms, value, text, quality, raw
         FROM ${this.table} WHERE ${where}
         ORDER BY ts ${direction}
         LIMIT {limit:UInt32} OFFSET {offset:UInt64}`,
        { ...params, limit: query.limit, offset: query.offset },
      ),
      this.select<{ total: string | number }>(`SELECT count() AS total FROM ${this.table} WHERE ${where}`, params),
    ]);
    return {
      rows: rows.map((row) => fromDbRow(query.tenantId, row)),
      total: Number(counted[0]?.total ?? 0),
    };
  }

  async aggregate(query: AggregateQuery): Promise<AggregatePoint[]> {
    this.assertOpen();
    if (query.deviceIds?.length === 0) return [];
    const { sql, params } = this.foldSql(query, { kind: 'one', variable: query.variable });
    const rows = await this.rollupRead(() =>
      this.select<{ device_id: string; bucket_s: string | number; folded: number | null }>(`${sql} ORDER BY device_id, bucket_s`, params),
    );
    return rows.map((row) => ({
      deviceId: row.device_id,
      bucket: new Date(Number(row.bucket_s) * 1000),
      value: row.folded,
    }));
  }

  async *aggregateRows(query: AggregateRowsQuery): AsyncGenerator<AggregateRow[]> {
    this.assertOpen();
    if (query.deviceIds.length === 0 || query.variables.length === 0) return;
    for (const slice of await this.slicesOf(query)) {
      const { sql, params } = this.foldSql(slice, { kind: 'many', variables: query.variables });
      // One row per bucket and device, the variables side by side; `any` of a Nullable skips the variables with no row.
      const values = query.variables.map((_, i) => `anyIf(toNullable(folded), variable = {variables:Array(String)}[${i + 1}])`);
      const result = await this.rollupRead(() =>
        this.client.query({
          query: `SELECT bucket_s, device_id, [${values.join(', ')}] AS vs
                FROM (${sql})
                GROUP BY bucket_s, device_id
                ORDER BY bucket_s, indexOf({deviceIds:Array(String)}, device_id)`,
          query_params: { ...params, variables: query.variables, deviceIds: query.deviceIds },
          format: 'JSONCompactEachRow',
        }),
      );
      for await (const batch of result.stream<[string | number, string, (number | null)[]]>()) {
        const page: AggregateRow[] = [];
        for (const row of batch) {
          const [bucket, deviceId, vs] = row.json();
          page.push({ bucket: new Date(Number(bucket) * 1000), deviceId, values: vs });
        }
        if (page.length > 0) yield page;
      }
    }
  }

  /**
   * The slices `aggregateRows` reads one at a time: whole local days (every bucket up to a day starts at the day's
   * start, so none straddles two slices), as many as hold about `ROWS_PER_SLICE` rows; weeks and months whole.
   */
  private async slicesOf(query: AggregateRowsQuery): Promise<AggregateRowsQuery[]> {
    const perDay = query.deviceIds.length * Math.max(1, 1440 / bucketMinutes[query.bucket]);
    const sliceMs = Math.max(1, Math.floor(ROWS_PER_SLICE / perDay)) * DAY_MS;
    const from = query.from.getTime();
    const to = query.to.getTime();
    if (query.bucket === '1w' || query.bucket === '1M' || to - from <= sliceMs) return [query];
    const candidates: number[] = [];
    for (let at = from + sliceMs; at < to; at += sliceMs) candidates.push(Math.floor(at / 1000));
    // The start of the local day of each candidate, as ClickHouse cuts days in the zone (DST included).
    const [row] = await this.select<{ starts: (string | number)[] }>(
      'SELECT arrayMap(x -> toUnixTimestamp(toStartOfDay(toDateTime(x, {tz:String}))), {at:Array(UInt32)}) AS starts',
      { at: candidates, tz: query.timeZone ?? 'UTC' },
    );
    const cuts = [...new Set((row?.starts ?? []).map((x) => Number(x) * 1000).filter((x) => x > from && x < to))].sort((a, b) => a - b);
    const edges = [from, ...cuts, to];
    return edges.slice(1).map((end, i) => ({ ...query, from: new Date(edges[i]!), to: new Date(end) }));
  }

  /**
   * The folding of `aggregate`: one row per device and bucket (`device_id`, `bucket_s`, `folded`), and per variable
   * too when several are asked for (`variable`). From the rollup that answers it exactly where there is one (its rows
   * for the whole steps, the edges off its steps folded from the raw samples in the same query), else the samples.
   */
  private foldSql(
    query: Omit<AggregateQuery, 'variable'>,
    which: { kind: 'one'; variable: string } | { kind: 'many'; variables: readonly string[] },
  ): { sql: string; params: Record<string, unknown> } {
    const byDevice = query.deviceIds ? 'AND device_id IN {deviceIds:Array(String)}' : '';
    const byVariable = which.kind === 'one' ? 'variable = {variable:String}' : 'variable IN {variables:Array(String)}';
    const variable = which.kind === 'one' ? '' : 'variable, ';
    const rollup = this.withRollups ? rollupFor(query) : null;
    const steps = rollup ? wholeSteps(query, rollup) : null;
    // The edges of a range off the rollup's steps: the same states, folded from the raw samples.
    const edges =
      rollup && steps && (steps.lo !== query.from.getTime() || steps.hi !== query.to.getTime())
        ? `UNION ALL
           SELECT device_id, variable, toDateTime(${rollup.start}, 'UTC') AS bucket, avgState(v) AS avg_s, sum(v) AS sum_s, min(v) AS min_s,
                  max(v) AS max_s, count() AS cnt_s, argMinState(v, ts) AS first_s, argMaxState(v, ts) AS last_s
           FROM (SELECT device_id, variable, ts, assumeNotNull(value) AS v FROM ${this.table}
                 WHERE ${inRange} AND ${byVariable} AND value IS NOT NULL ${byDevice}
                   AND (ts < fromUnixTimestamp64Milli({loMs:Int64}, 'UTC') OR ts >= fromUnixTimestamp64Milli({hiMs:Int64}, 'UTC')))
           GROUP BY device_id, variable, bucket`
        : '';
    // The result alias must not be `value`: ClickHouse resolves aliases in WHERE, too.
    const sql = rollup
      ? `SELECT device_id, ${variable}
                toUnixTimestamp(toDateTime(${bucketStart[query.bucket].replaceAll('(ts,', '(bucket,')}, {tz:String})) AS bucket_s,
                toFloat64(${foldRollup[query.fn as RollupFn]}) AS folded
         FROM (
           ${rolledRows(
             this.table,
             rollup,
             `tenant_id = {tenantId:String} AND ${byVariable} ${byDevice}`,
             "toDateTime(intDiv({loMs:Int64}, 1000), 'UTC')",
             "toDateTime(intDiv({hiMs:Int64}, 1000), 'UTC')",
           )}
           ${edges}
         )
         GROUP BY device_id, ${variable}bucket_s`
      : `SELECT device_id, ${variable}
              toUnixTimestamp(toDateTime(${bucketStart[query.bucket]}, {tz:String})) AS bucket_s,
              toFloat64(${fold[query.fn]}) AS folded
       FROM ${this.table}
       WHERE ${inRange} AND ${byVariable} AND value IS NOT NULL ${byDevice}
       GROUP BY device_id, ${variable}bucket_s`;
    return {
      sql,
      params: {
        ...rangeParams(query.tenantId, query.from, query.to),
        ...(steps ? { loMs: steps.lo, hiMs: steps.hi } : {}),
        ...(which.kind === 'one' ? { variable: which.variable } : { variables: which.variables }),
        tz: query.timeZone ?? 'UTC',
        ...(query.deviceIds ? { deviceIds: query.deviceIds } : {}),
      },
    };
  }

  /** The statistic results beside this store's telemetry table (`stat_results`, or `<table>_stat` for a test's own table). */
  private get statResultsTable(): string {
    return this.table === TELEMETRY_TABLE ? STAT_RESULTS_TABLE : `${this.table}_stat`;
  }

  async computeStat(computation: StatComputation): Promise<void> {
    this.assertOpen();
    const { from, to, timeZone } = computation;
    rangeParams(computation.tenantId, from, to);
    if (computation.keys.kind === 'device' && computation.keys.deviceIds?.length === 0) return;
    if (computation.keys.kind === 'map' && Object.keys(computation.keys.keyOf).length === 0) return;
    const rollup = this.withRollups ? statRollupFor(computation, [offsetMinutes(timeZone, from), offsetMinutes(timeZone, to)]) : null;
    await this.rollupRead(() =>
      this.client.command({
        query: statInsertSql(computation, { table: this.table, rollup }, this.statResultsTable),
        query_params: statParams(computation),
      }),
    );
  }

  async putStatResults(tenantId: string, taskId: string, points: readonly StatResultPoint[]): Promise<void> {
    this.assertOpen();
    for (let start = 0; start < points.length; start += 10_000) {
      const chunk = points.slice(start, start + 10_000);
      await this.client.command({
        query: `INSERT INTO ${this.statResultsTable} (tenant_id, task_id, window_start, key, value, samples, computed_at)
          SELECT {tenantId:String}, {taskId:String}, toDateTime(r.1, 'UTC'), r.2, r.3, r.4, now64(3, 'UTC')
          FROM (SELECT arrayJoin(arrayZip({w:Array(UInt32)}, {k:Array(String)}, {v:Array(Nullable(Float64))}, {n:Array(UInt64)})) AS r)`,
        query_params: {
          tenantId: requireId('tenantId', tenantId),
          taskId: requireId('taskId', taskId),
          w: chunk.map((p) => Math.floor(epochMs('windowStart', p.windowStart) / 1000)),
          k: chunk.map((p) => p.key),
          v: chunk.map((p) => p.value),
          n: chunk.map((p) => p.samples),
        },
      });
    }
  }

  async statResults(query: StatResultQuery): Promise<StatResultPoint[]> {
    this.assertOpen();
    const rows = await this.select<{ key: string; w: string | number; value: number | null; samples: string | number }>(
      `SELECT key, toUnixTimestamp(window_start) AS w, value, samples
       FROM ${this.statResultsTable} FINAL
       WHERE tenant_id = {tenantId:String} AND task_id = {taskId:String}
         AND window_start >= toDateTime(intDiv({fromMs:Int64}, 1000), 'UTC') AND window_start < toDateTime(intDiv({toMs:Int64}, 1000), 'UTC')
         ${query.key === undefined ? '' : 'AND key = {key:String}'}
       ORDER BY window_start, key
       LIMIT {limit:UInt32}`,
      {
        ...rangeParams(query.tenantId, query.from, query.to),
        taskId: query.taskId,
        ...(query.key === undefined ? {} : { key: query.key }),
        limit: query.limit,
      },
    );
    return rows.map((r) => ({ windowStart: new Date(Number(r.w) * 1000), key: r.key, value: r.value, samples: Number(r.samples) }));
  }

  async deleteStatResults(tenantId: string, taskId: string): Promise<void> {
    this.assertOpen();
    await this.client.command({
      query: `DELETE FROM ${this.statResultsTable} WHERE tenant_id = {tenantId:String} AND task_id = {taskId:String}`,
      query_params: { tenantId: requireId('tenantId', tenantId), taskId: requireId('taskId', taskId) },
    });
  }

  async countSamples(query: SampleCountQuery): Promise<{ since: number; recent: number }> {
    this.assertOpen();
    if (query.deviceIds?.length === 0) return { since: 0, recent: 0 };
    // The tenant's whole count over the last days, from the per-second counts: `recent` from its first whole second.
    if (this.withRollups && !query.deviceIds && Date.now() - query.since.getTime() < (SAMPLE_COUNTS_DAYS - 1) * 86_400_000) {
      const since = "toDateTime(intDiv({sinceMs:Int64} + 999, 1000), 'UTC')";
      const rows = await this.rollupRead(() =>
        this.select<{ since: string | number; recent: string | number }>(
          `SELECT sum(n) AS since, sumIf(n, second >= toDateTime(intDiv({recentMs:Int64} + 999, 1000), 'UTC')) AS recent
         FROM (
           SELECT second, n FROM ${this.table}_counts WHERE tenant_id = {tenantId:String} AND second >= ${since}
           UNION ALL
           SELECT toDateTime(ts, 'UTC') AS second, count() AS n FROM ${this.table}
           WHERE tenant_id = {tenantId:String} AND ts >= ${since} AND received_at >= ${watermarkOf(this.table)}
           GROUP BY second
         )`,
          {
            tenantId: requireId('tenantId', query.tenantId),
            sinceMs: epochMs('since', query.since),
            recentMs: epochMs('recentSince', query.recentSince),
          },
        ),
      );
      return { since: Number(rows[0]?.since ?? 0), recent: Number(rows[0]?.recent ?? 0) };
    }
    const byDevice = query.deviceIds ? 'AND device_id IN {deviceIds:Array(String)}' : '';
    const rows = await this.select<{ since: string | number; recent: string | number }>(
      `SELECT count() AS since, countIf(ts >= fromUnixTimestamp64Milli({recentMs:Int64}, 'UTC')) AS recent FROM ${this.table}
       WHERE tenant_id = {tenantId:String} AND ts >= fromUnixTimestamp64Milli({sinceMs:Int64}, 'UTC') ${byDevice}`,
      {
        tenantId: requireId('tenantId', query.tenantId),
        sinceMs: epochMs('since', query.since),
        recentMs: epochMs('recentSince', query.recentSince),
        ...(query.deviceIds ? { deviceIds: [...query.deviceIds] } : {}),
      },
    );
    return { since: Number(rows[0]?.since ?? 0), recent: Number(rows[0]?.recent ?? 0) };
  }

  async energyConsumption(query: EnergyQuery): Promise<EnergyPoint[]> {
    this.assertOpen();
    if (query.deviceIds.length === 0) return [];
    const fromMs = epochMs('from', query.from);
    const window = query.window === '1M' ? 'toStartOfMonth(bucket, {tz:String})' : 'toStartOfDay(bucket, {tz:String})';
    // Each 5-minute bucket's last reading less the one before it (of the same meter) is what was used up to it,
    // counted in the bucket's window and in the price period its local minute of the day falls in.
    const fiveMinutes = rollups.find((r) => r.suffix === '5m')!;
    const rows = await this.rollupRead(() =>
      this.select<{ w: string | number; p: string | number; kwh: number }>(
        `SELECT toUnixTimestamp(toDateTime(${window}, {tz:String})) AS w,
              arrayFirstIndex((s, e) -> if(s < e, m >= s AND m < e, m >= s OR m < e), {starts:Array(UInt16)}, {ends:Array(UInt16)}) AS p,
              sum(if(used < 0, reading, used)) AS kwh
       FROM (
         SELECT bucket, reading,
                reading - lagInFrame(reading) OVER (PARTITION BY device_id ORDER BY bucket ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS used,
                row_number() OVER (PARTITION BY device_id ORDER BY bucket) AS n,
                toHour(bucket, {tz:String}) * 60 + toMinute(bucket, {tz:String}) AS m
         FROM (
           SELECT device_id, bucket, argMaxMerge(last_s) AS reading
           FROM (${rolledRows(
             this.table,
             fiveMinutes,
             'tenant_id = {tenantId:String} AND variable = {variable:String} AND device_id IN {deviceIds:Array(String)}',
             "toDateTime(intDiv({lookbackMs:Int64}, 1000), 'UTC')",
             "toDateTime(intDiv({toMs:Int64}, 1000), 'UTC')",
           )})
           GROUP BY device_id, bucket
         )
       )
       WHERE n > 1 AND bucket >= toDateTime(intDiv({fromMs:Int64}, 1000), 'UTC')
       GROUP BY w, p
       ORDER BY w, p`,
        {
          tenantId: requireId('tenantId', query.tenantId),
          variable: query.variable,
          deviceIds: [...query.deviceIds],
          lookbackMs: fromMs - 86_400_000,
          fromMs,
          toMs: epochMs('to', query.to),
          tz: query.timeZone,
          starts: query.periods.map((p) => p.startMinute),
          ends: query.periods.map((p) => p.endMinute),
        },
      ),
    );
    return rows.map((r) => ({
      windowStart: new Date(Number(r.w) * 1000),
      period: Number(r.p) === 0 ? null : Number(r.p) - 1,
      kwh: Number(r.kwh),
    }));
  }

  async latest(query: LatestQuery): Promise<TelemetryRow[]> {
    this.assertOpen();
    if (query.deviceIds.length === 0 || query.variables?.length === 0) return [];
    const byVariable = query.variables ? 'AND variable IN {variables:Array(String)}' : '';
    // A tuple is never NULL, so argMax keeps the newest sample even when its value is NULL.
    const rows = await this.select<{
      device_id: string;
      variable: string;
      ts_ms: string | number;
      last: [string, number | null, string | null, TelemetryQuality, string | null];
    }>(
      `SELECT device_id, variable, toUnixTimestamp64Milli(max(ts)) AS ts_ms,
              argMax(tuple(product_id, value, text, quality, raw), ts) AS last
       FROM ${this.table}
       WHERE tenant_id = {tenantId:String} AND device_id IN {deviceIds:Array(String)} ${byVariable}
       GROUP BY device_id, variable
       ORDER BY device_id, variable`,
      {
        tenantId: requireId('tenantId', query.tenantId),
        deviceIds: query.deviceIds,
        ...(query.variables ? { variables: query.variables } : {}),
      },
    );
    return rows.map(({ device_id, variable, ts_ms, last: [productId, value, text, quality, raw] }) =>
      fromDbRow(query.tenantId, {
        device_id,
        product_id: productId,
        variable,
        ts_ms,
        value,
        text,
        quality,
        raw,
      }),
    );
  }

  async health(): Promise<TimeSeriesHealth> {
    try {
      const [row] = await this.select<{ version: string }>('SELECT version() AS version', {});
      return {
        ok: true,
        engine: this.engine,
        ...(row ? { version: row.version } : {}),
      };
    } catch (error) {
      return {
        ok: false,
        engine: this.engine,
        error: (error as Error).message,
      };
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writes.flush();
    await this.rollupJob?.stop();
    await this.client.close();
  }

  private async insertDbRows(rows: TelemetryRow[], dedupToken?: string): Promise<void> {
    // Without a token, no deduplication at all: two equal batches are both kept, as before the window existed.
    const clickhouse_settings =
      dedupToken === undefined
        ? { insert_deduplicate: 0 as const }
        : { insert_deduplication_token: dedupToken, deduplicate_blocks_in_dependent_materialized_views: 1 as const };
    if (this.engine === 'clickhouse') {
      await this.client.insert({ table: this.table, values: rows.map(toDbRow), format: 'JSONEachRow', clickhouse_settings });
      return;
    }
    // chDB: RowBinary through a file (its client insert takes only text formats); the token applies as to any insert.
    const file = rowBinaryFile(this.table, this.fileSeq++);
    await writeFile(file, encodeRowBinary(rows));
    try {
      await this.client.command({
        // The settings in the statement, not clickhouse_settings: chDB's connection turns those into session-wide
        // SETs, and a token would then stay and drop the next inserts (found by tests/telemetry/kafka-dedup.int.test.ts).
        query: `INSERT INTO ${this.table} (${ROW_BINARY_COLUMN_NAMES}) ${dedupSettings(dedupToken)} SELECT * FROM file('${file}', RowBinary, '${ROW_BINARY_COLUMNS.replaceAll("'", "\\'")}')`,
      });
    } finally {
      await rm(file, { force: true });
    }
  }

  /** A table's columns with their codecs, and its engine clause (where a TTL shows). */
  private async shapeOf(table: string): Promise<{ codecs: Map<string, string>; engineFull: string }> {
    const columns = await this.select<{ name: string; compression_codec: string }>(
      'SELECT name, compression_codec FROM system.columns WHERE database = currentDatabase() AND table = {table:String}',
      { table },
    );
    const [engine] = await this.select<{ engine_full: string }>(
      'SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = {table:String}',
      { table },
    );
    return { codecs: new Map(columns.map((c) => [c.name, c.compression_codec])), engineFull: engine?.engine_full ?? '' };
  }

  /** Schema changes at start: a TTL is not applied to existing parts then (see telemetryMigrations); settings in the statement (chDB makes clickhouse_settings session-wide). */
  private async alter(query: string): Promise<void> {
    await this.client.command({ query: `${query} SETTINGS materialize_ttl_after_modify = 0` });
  }

  private async select<Row>(query: string, params: Record<string, unknown>): Promise<Row[]> {
    const result = await this.client.query({
      query,
      query_params: params,
      format: 'JSONEachRow',
    });
    return result.json<Row>();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`time-series store (${this.engine}) is closed`);
  }
}

interface HistoryDbRow {
  device_id: string;
  product_id: string;
  variable: string;
  ts_ms: string | number;
  value: number | null;
  text: string | null;
  quality: TelemetryQuality;
  raw: string | null;
}

/**
 * The SETTINGS clause of a telemetry insert: with a token, a repeat of it stores nothing (rollups included);
 * without one, no deduplication at all, so two equal batches are both kept as before the window existed.
 */
export function dedupSettings(dedupToken?: string): string {
  if (dedupToken === undefined) return 'SETTINGS insert_deduplicate = 0';
  if (!/^[\w:.,-]{1,200}$/.test(dedupToken)) throw new TypeError(`deduplication token ${JSON.stringify(dedupToken)} has unsafe characters`);
  return `SETTINGS insert_deduplicate = 1, insert_deduplication_token = '${dedupToken}', deduplicate_blocks_in_dependent_materialized_views = 1`;
}

function rangeParams(tenantId: string, from: Date, to: Date) {
  return {
    tenantId: requireId('tenantId', tenantId),
    fromMs: epochMs('from', from),
    toMs: epochMs('to', to),
  };
}

function requireId(name: string, value: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new TypeError(`${name} is required`);
  return value;
}

function epochMs(name: string, date: Date): number {
  const ms = date instanceof Date ? date.getTime() : Number.NaN;
  if (!Number.isFinite(ms)) throw new TypeError(`${name} must be a valid Date`);
  return ms;
}

/** The row, its identifiers, time and quality checked before it joins a batch (one caller's bad row fails only its call). */
function checkedRow(row: TelemetryRow): TelemetryRow {
  requireId('tenantId', row.tenantId);
  requireId('deviceId', row.deviceId);
  requireId('variable', row.variable);
  epochMs('ts', row.ts);
  if (row.quality != null && !(row.quality in qualityCodes))
    throw new TypeError(`quality must be good, uncertain or bad, got ${row.quality}`);
  return row;
}
const qualityCodes: Record<TelemetryQuality, true> = { good: true, uncertain: true, bad: true };

export function toDbRow(row: TelemetryRow): TelemetryDbRow {
  return {
    tenant_id: requireId('tenantId', row.tenantId),
    device_id: requireId('deviceId', row.deviceId),
    product_id: row.productId ?? '',
    variable: requireId('variable', row.variable),
    // DateTime64(3, 'UTC') parses this form as UTC on every ClickHouse version and setting.
    ts: new Date(epochMs('ts', row.ts)).toISOString().slice(0, 23).replace('T', ' '),
    value: row.value ?? null,
    text: row.text ?? null,
    quality: row.quality ?? 'good',
    raw: row.raw ?? null,
    retention_days: retentionOf(row),
  };
}

function fromDbRow(tenantId: string, row: HistoryDbRow): TelemetryRow {
  return {
    tenantId,
    deviceId: row.device_id,
    productId: row.product_id === '' ? null : row.product_id,
    variable: row.variable,
    ts: new Date(Number(row.ts_ms)),
    value: row.value,
    text: row.text,
    quality: row.quality,
    raw: row.raw,
  };
}
