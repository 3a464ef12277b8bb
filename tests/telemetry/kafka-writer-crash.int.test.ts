import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafkaBus, type KafkaBus } from '@iot/infra/bus/kafka.ts';
import { busTelemetrySink, TELEMETRY_TOPIC, TIMESERIES_WRITER_GROUP } from '@iot/ingest/writer.ts';
import { ChdbTimeSeriesStore } from '@iot/infra/timeseries/chdb.ts';
import type { TelemetryRow } from '@iot/infra/timeseries/index.ts';
import { resolveEngine, type EngineHandle } from '../harness/engines.ts';
import { startKafka } from '../harness/kafka.ts';
import { waitFor } from '../harness/process.ts';

/**
 * At-least-once without duplicates (issue 11): the Kafka writer is killed mid-stream, once right after an
 * insert and before its offsets are committed (the batch is delivered again and its token drops the repeat),
 * once from outside at an arbitrary moment; restarted each time, it stores every published row exactly once.
 */
const DEVICES = 20;
const VARIABLES = ['v1', 'v2', 'v3'];
const SAMPLES = 400;
const t0 = Date.UTC(2026, 10, 2, 0, 0, 0);

let kafka: EngineHandle;
let bus: KafkaBus;
let dataDir: string;
const children: ChildProcess[] = [];

/** A writer process; resolves once it has joined the group, and collects the tokens of what it inserted. */
async function startWriter(crashAfterInserts?: number) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'tests/telemetry/kafka-writer-process.ts',
      kafka.url,
      dataDir,
      ...(crashAfterInserts ? [String(crashAfterInserts)] : []),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  const inserted: string[] = [];
  const exited = new Promise<string | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    const lines = out.split('\n');
    out = lines.pop()!;
    for (const line of lines) if (line.startsWith('inserted ')) inserted.push(line.split(' ')[1]!);
  });
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => chunk.toString().includes('ready') && resolve();
    child.stdout!.on('data', onData);
    void exited.then((code) => reject(new Error(`writer exited (${code}) before it was ready`)));
  });
  return { child, inserted, exited };
}

const rowsOfDevice = (d: number, from: number, to: number): TelemetryRow[] =>
  Array.from({ length: to - from }, (_, k) => from + k).flatMap((i) =>
    VARIABLES.map((variable, v) => ({
      tenantId: 'crash',
      deviceId: `dev-${d}`,
      productId: 'p',
      variable,
      ts: new Date(t0 + i * 1000),
      value: i * 10 + v,
      text: null,
    })),
  );

/** Publishes samples [from, to) of every device as the intake does: one message per device per write. */
async function publish(from: number, to: number, step = 20): Promise<void> {
  const sink = busTelemetrySink(bus);
  for (let i = from; i < to; i += step) {
    await sink.write(Array.from({ length: DEVICES }, (_, d) => rowsOfDevice(d, i, Math.min(i + step, to))).flat());
  }
}

beforeAll(async () => {
  const resolved = await resolveEngine('Kafka', 'KAFKA_BROKERS', () => startKafka());
  if (!resolved.ok) throw new Error(resolved.reason);
  kafka = resolved.engine;
  bus = createKafkaBus({ brokers: kafka.url.split(','), clientId: 'crash-test-intake' });
  dataDir = mkdtempSync(join(tmpdir(), 'kafka-crash-'));
}, 180_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await bus?.close();
  await kafka?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('Kafka time-series writer killed mid-stream', () => {
  it('stores every published row exactly once across a crash after an insert, a kill, and restarts', async () => {
    // A backlog, then a writer that dies right after its third insert, before committing it.
    await publish(0, 200);
    const first = await startWriter(3);
    expect(await first.exited).toBe('SIGKILL');
    expect(first.inserted).toHaveLength(3);

    // The next writer gets those batches again (same boundaries, same tokens) while devices keep publishing.
    const second = await startWriter();
    const publishing = publish(200, SAMPLES);
    await waitFor(
      'the second writer to insert the third batch again, and one more',
      () => second.inserted.includes(first.inserted[2]!) && second.inserted.length >= 4,
      30_000,
      20,
    );
    second.child.kill('SIGKILL');
    await second.exited;
    expect(second.inserted).toContain(first.inserted[2]);

    // A third writer finishes the stream.
    const third = await startWriter();
    await publishing;
    await waitFor('the writer to catch up', async () => (await bus.lag(TIMESERIES_WRITER_GROUP, TELEMETRY_TOPIC)) <= 0, 60_000, 200);
    third.child.kill('SIGTERM');
    await third.exited;

    // Then: per device and variable, exactly the published samples.
    const store = new ChdbTimeSeriesStore({ path: dataDir });
    try {
      const result = await store.client.query({
        query: `SELECT device_id, variable, count() AS n, uniqExact(ts) AS distinct_ts, sum(value) AS total
                FROM telemetry WHERE tenant_id = 'crash' GROUP BY device_id, variable ORDER BY device_id, variable`,
        format: 'JSONEachRow',
      });
      const rows = await result.json<{ device_id: string; variable: string; n: string; distinct_ts: string; total: number }>();
      const expected = Array.from({ length: DEVICES }, (_, d) =>
        VARIABLES.map((variable, v) => ({
          device_id: `dev-${d}`,
          variable,
          n: SAMPLES,
          distinct_ts: SAMPLES,
          total: Array.from({ length: SAMPLES }, (_, i) => i * 10 + v).reduce((a, b) => a + b, 0),
        })),
      )
        .flat()
        .sort((a, b) => a.device_id.localeCompare(b.device_id) || a.variable.localeCompare(b.variable));
      expect(rows.map((r) => ({ ...r, n: Number(r.n), distinct_ts: Number(r.distinct_ts), total: Number(r.total) }))).toEqual(expected);
    } finally {
      await store.close();
    }
  });
});
