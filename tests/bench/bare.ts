import type { ClickHouseClient } from '@clickhouse/client';
import type { TelemetryRow } from '@iot/contracts/ports/timeseries.ts';

/**
 * What every bare pipeline of the ingest benchmarks does with a message, and nothing more: the device from the topic
 * (`devices/<id>/...`), JSON.parse, one row per value. No authentication, validation, rules or latest values.
 */
export function bareRows(message: { topic: string; payload: Buffer }): TelemetryRow[] {
  const deviceId = message.topic.split('/')[1]!;
  const values = JSON.parse(message.payload.toString('utf8')) as Record<string, number>;
  const ts = new Date();
  return Object.entries(values).map(([variable, value]) => ({ tenantId: 'bench', deviceId, variable, ts, value, text: null }));
}

/** Rows in a table of the time-series store. */
export async function countRows(client: ClickHouseClient, table: string): Promise<number> {
  const result = await client.query({ query: `SELECT count() AS n FROM ${table}`, format: 'JSONEachRow' });
  return Number(((await result.json()) as { n: string }[])[0]!.n);
}
