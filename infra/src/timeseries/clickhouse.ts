import type { ClickHouseClient } from '@clickhouse/client';
import { WriteBatcher } from './batcher.ts';
import type {
  AggregateFn,
  AggregatePoint,
  AggregateQuery,
  HistoryPage,
  HistoryQuery,
  LatestQuery,
  HistoryBucket,
  TelemetryQuality,
  TelemetryRow,
  TimeSeriesHealth,
  TimeSeriesStore,
} from './port.ts';
import { TELEMETRY_TABLE, telemetryTableDdl } from './schema.ts';

/** A history page larger than this is an export, not a page: stream it elsewhere. */
export const MAX_HISTORY_LIMIT = 10_000;
const MAX_ROWS_PER_INSERT = 50_000;

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

const inRange = `tenant_id = {tenantId:String}
  AND ts >= fromUnixTimestamp64Milli({fromMs:Int64}, 'UTC')
  AND ts < fromUnixTimestamp64Milli({toMs:Int64}, 'UTC')`;

/**
 * The time-series port over a `@clickhouse/client`: the same SQL whether the client talks to
 * chDB in-process or to a ClickHouse server.
 */
export class ClickHouseTimeSeriesStore implements TimeSeriesStore {
  private readonly writes: WriteBatcher<TelemetryDbRow>;
  private closed = false;

  constructor(
    /** Exposed for infra-internal tools (benchmarks, migrations); not part of the port. */
    readonly client: ClickHouseClient,
    readonly engine: 'chdb' | 'clickhouse',
    readonly table: string = TELEMETRY_TABLE,
  ) {
    this.writes = new WriteBatcher((rows) => this.insertDbRows(rows), MAX_ROWS_PER_INSERT);
  }

  async migrate(): Promise<void> {
    await this.client.command({ query: telemetryTableDdl(this.table) });
  }

  insertTelemetry(rows: TelemetryRow[]): Promise<void> {
    this.assertOpen();
    return this.writes.enqueue(rows.map(toDbRow));
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
    const byDevice = query.deviceIds ? 'AND device_id IN {deviceIds:Array(String)}' : '';
    if (query.deviceIds?.length === 0) return [];
    // The result alias must not be `value`: ClickHouse resolves aliases in WHERE, too.
    const rows = await this.select<{
      device_id: string;
      bucket_s: string | number;
      folded: number | null;
    }>(
      `SELECT device_id,
              toUnixTimestamp(toDateTime(${bucketStart[query.bucket]}, {tz:String})) AS bucket_s,
              toFloat64(${fold[query.fn]}) AS folded
       FROM ${this.table}
       WHERE ${inRange} AND variable = {variable:String} AND value IS NOT NULL ${byDevice}
       GROUP BY device_id, bucket_s
       ORDER BY device_id, bucket_s`,
      {
        ...rangeParams(query.tenantId, query.from, query.to),
        variable: query.variable,
        tz: query.timeZone ?? 'UTC',
        ...(query.deviceIds ? { deviceIds: query.deviceIds } : {}),
      },
    );
    return rows.map((row) => ({
      deviceId: row.device_id,
      bucket: new Date(Number(row.bucket_s) * 1000),
      value: row.folded,
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
    await this.client.close();
  }

  private async insertDbRows(rows: TelemetryDbRow[]): Promise<void> {
    await this.client.insert({
      table: this.table,
      values: rows,
      format: 'JSONEachRow',
    });
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
