import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbTimeSeriesStore } from '@iot/infra/timeseries/chdb.ts';
import { MERGE_SELECTOR_BASE } from '@iot/infra/timeseries/schema.ts';
import type { TelemetryRow } from '@iot/infra/timeseries/index.ts';

/**
 * The idempotent insert under the Kafka writer's at-least-once delivery (issue 11): chDB honours
 * `insert_deduplication_token` on the telemetry table (non_replicated_deduplication_window), rollups included.
 */
describe('telemetry inserts with a deduplication token (chDB)', () => {
  let dir: string;
  let sut: ChdbTimeSeriesStore;
  const tenantId = 'dedup';
  const rows = (deviceId: string, n: number): TelemetryRow[] =>
    Array.from({ length: n }, (_, i) => ({
      tenantId,
      deviceId,
      variable: 'temp',
      ts: new Date(Date.UTC(2026, 10, 1, 0, 0, i)),
      value: i,
      text: null,
    }));
  const count = async (table: string, deviceId: string): Promise<number> => {
    const result = await sut.client.query({
      query: `SELECT ${table === 'telemetry' ? 'count()' : 'sum(cnt_s)'} AS n FROM ${table} WHERE device_id = {d:String}`,
      query_params: { d: deviceId },
      format: 'JSONEachRow',
    });
    return Number((await result.json<{ n: string }>())[0]?.n ?? 0);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kafka-dedup-'));
    sut = new ChdbTimeSeriesStore({ path: dir });
    await sut.migrate();
  });
  afterAll(async () => {
    await sut?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores a batch inserted twice with the same token once, in the table and its rollups', async () => {
    await sut.insertTelemetry(rows('d1', 100), { dedupToken: 'telemetry:0:0-99' });
    await sut.insertTelemetry(rows('d1', 100), { dedupToken: 'telemetry:0:0-99' });
    await sut.flushRollups();
    expect(await count('telemetry', 'd1')).toBe(100);
    expect(await count('telemetry_5m', 'd1')).toBe(100);
    expect(await count('telemetry_1h', 'd1')).toBe(100);
  });

  it('stores the same rows again under another token, and always without one', async () => {
    await sut.insertTelemetry(rows('d2', 10), { dedupToken: 'telemetry:1:0-9' });
    await sut.insertTelemetry(rows('d2', 10), { dedupToken: 'telemetry:1:10-19' });
    await sut.insertTelemetry(rows('d3', 10));
    await sut.insertTelemetry(rows('d3', 10));
    expect(await count('telemetry', 'd2')).toBe(20);
    expect(await count('telemetry', 'd3')).toBe(20);
  });

  it('keeps the window on a table created before the setting (migrate applies it again)', async () => {
    await sut.migrate();
    const result = await sut.client.query({ query: 'SHOW CREATE TABLE telemetry', format: 'JSONEachRow' });
    const [row] = await result.json<{ statement: string }>();
    expect(row?.statement).toMatch(/non_replicated_deduplication_window = \d+/);
  });

  it('sets the merge selector at every start, on a table made without it (fewer rewrites of each row under ingest)', async () => {
    await sut.client.command({ query: 'ALTER TABLE telemetry RESET SETTING merge_selector_base' });
    const statement = async () => {
      const result = await sut.client.query({ query: 'SHOW CREATE TABLE telemetry', format: 'JSONEachRow' });
      return (await result.json<{ statement: string }>())[0]?.statement ?? '';
    };
    expect(await statement()).not.toMatch(/merge_selector_base/);
    await sut.migrate();
    expect(await statement()).toMatch(new RegExp(`merge_selector_base = ${MERGE_SELECTOR_BASE}\\b`));
  });
});
