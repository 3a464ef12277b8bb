/** The telemetry table. One DDL for chDB and ClickHouse server; no TTL: retention is an operator's choice. */
export const TELEMETRY_TABLE = 'telemetry';

export const telemetryTableDdl = (table: string = TELEMETRY_TABLE): string => `
CREATE TABLE IF NOT EXISTS ${table}
(
  tenant_id   LowCardinality(String),
  device_id   String,
  product_id  LowCardinality(String) DEFAULT '',
  variable    LowCardinality(String),
  ts          DateTime64(3, 'UTC') CODEC(DoubleDelta, ZSTD(1)),
  value       Nullable(Float64),
  text        Nullable(String),
  quality     Enum8('good' = 0, 'uncertain' = 1, 'bad' = 2) DEFAULT 'good',
  raw         Nullable(String) CODEC(ZSTD(3)),
  received_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(ts)
ORDER BY (tenant_id, device_id, variable, ts)`;
