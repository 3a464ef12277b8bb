import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { handleCommand } from '@iot/command/handler.ts';
import { tenantDecider, tenantStream, type TenantCommand } from '@iot/command/tenant/decide.ts';
import { createPostgresEventStore } from '@iot/infra/event-store/postgres.ts';
import { startEmbeddedPostgres } from '@iot/infra/postgres/embedded.ts';
import { API_POOL_SIZE, createSqlPool, PROJECTION_POOL_SIZE, type SqlPool } from '@iot/infra/postgres/sql.ts';
import { migrator } from '@iot/infra/migrate/migrate.ts';
import { createProjectionRunner } from '@iot/projections/runner.ts';
import { projections } from '@iot/projections/index.ts';
import { freePort } from '../harness/free-port.ts';
import type { Figure } from './figure.ts';

const CLIENTS = 32;
/** The target: 2,000 commands a second on this 2-core machine. */
const TARGET_RATE = 2000;
/**
 * Connections of the pool the clients share, as the platform's API pool; the projection runner has its own.
 * Group commit needs only one of them for appends and one for reads: the rest serve the raw inserts.
 */
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? API_POOL_SIZE);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/**
 * Runs `work` from CLIENTS concurrent loops for `ms`, as fast as they go or, with `perSecond`, started on a
 * schedule of that many a second; returns operations/s and each operation's latency.
 */
async function drive(ms: number, work: () => Promise<void>, perSecond?: number): Promise<{ rate: number; latencies: number[] }> {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + ms;
  let scheduled = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < deadline) {
        if (perSecond) {
          const due = started + (scheduled++ * 1000) / perSecond;
          if (due >= deadline) break;
          if (due > performance.now()) await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
        }
        const t0 = performance.now();
        await work();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return { rate: latencies.length / ((performance.now() - started) / 1000), latencies: latencies.sort((a, b) => a - b) };
}

const registerCommand = (tenantId: string): TenantCommand => ({
  type: 'RegisterTenant',
  tenantId,
  name: `Bench ${tenantId.slice(0, 8)}`,
  contactName: 'Bench',
  company: 'Bench Ltd',
  method: 'email',
  phone: null,
  email: `${tenantId.slice(0, 8)}@bench.test`,
});

/**
 * Single-event commands (RegisterTenant through the command handler: read stream, decide, append at the
 * expected version; each client's promise resolves when its append has committed, synchronous_commit on)
 * from 32 concurrent clients against embedded PostgreSQL, with every projection of the platform running
 * (the tenant list and the operation log take these events); beside it, in the same run, raw single-row
 * inserts of the same rows from 32 clients.
 */
export async function benchCommands(seconds = 10): Promise<Figure[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-pg-'));
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort() });
  const pool = createSqlPool(pg.url, CONNECTIONS);
  const projectionPool = createSqlPool(pg.url, PROJECTION_POOL_SIZE);
  try {
    // Counts the group commits, to show how many appends each one carried.
    let groupCommits = 0;
    const countingPool: SqlPool = {
      ...pool,
      query: (text, params, options) => {
        if (options?.prepare === 'es_append_batch') groupCommits += 1;
        return pool.query(text, params, options);
      },
    };
    const store = await createPostgresEventStore(countingPool, { subscriptionPool: projectionPool });
    const lags: number[] = [];
    const runner = createProjectionRunner(store, projectionPool, projections, {
      migrate: migrator(projectionPool),
      onLag: (_name, ms) => lags.push(ms),
    });
    await runner.setup();
    await runner.startAll();

    // The limit: the same rows, inserted one per statement with no event-store logic around them.
    await pool.query(
      `create table bench_raw (id uuid primary key, stream_name text not null, type text not null, data jsonb not null, metadata jsonb not null)`,
    );
    const metadata = {
      tenantId: 'system',
      actor: { kind: 'user', id: 'bench' },
      correlationId: '',
      causationId: null,
      occurredAt: '',
      schemaVersion: 1,
    };
    const raw = await drive(seconds * 1000, async () => {
      const id = randomUUID();
      await pool.query('insert into bench_raw (id, stream_name, type, data, metadata) values ($1, $2, $3, $4, $5)', [
        id,
        tenantStream(id),
        'TenantRegistered',
        JSON.stringify(registerCommand(id)),
        JSON.stringify({ ...metadata, correlationId: id, occurredAt: new Date().toISOString() }),
      ]);
    });

    const command = async () => {
      const id = randomUUID();
      await handleCommand(store, tenantDecider, tenantStream(id), registerCommand(id), {
        tenantId: 'system',
        actor: { kind: 'user', id: 'bench' },
      });
    };
    // As fast as 32 clients go: the throughput, and how far the projection falls behind at saturation.
    groupCommits = 0;
    const commands = await drive(seconds * 1000, command);
    const appendsPerCommit = commands.latencies.length / Math.max(1, groupCommits);
    await runner.catchUp(120_000);
    const saturatedLags = lags.splice(0).sort((a, b) => a - b);
    // At the target rate, from the same 32 clients: the lag a live fleet of that size sees.
    const paced = await drive(seconds * 1000, command, TARGET_RATE);
    await runner.catchUp(60_000);
    await runner.stopAll();
    await store.close();
    const pacedLags = lags.splice(0).sort((a, b) => a - b);
    return [
      {
        bench: 'commands',
        value: Math.round(commands.rate),
        unit: 'commands/s',
        limit: Math.round(raw.rate),
        limit_of: 'raw postgres insert',
        appends_per_commit: +appendsPerCommit.toFixed(1),
      },
      {
        bench: 'command_latency_p50',
        value: +percentile(commands.latencies, 50).toFixed(2),
        unit: 'ms',
        limit: +percentile(raw.latencies, 50).toFixed(2),
        limit_of: 'raw postgres insert p50',
      },
      {
        bench: 'command_latency_p99',
        value: +percentile(commands.latencies, 99).toFixed(2),
        unit: 'ms',
        limit: +percentile(raw.latencies, 99).toFixed(2),
        limit_of: 'raw postgres insert p99',
      },
      {
        bench: 'projection_lag_p99_saturated',
        value: Math.round(percentile(saturatedLags, 99)),
        unit: 'ms',
        limit: 500,
        limit_of: 'target of issue 2',
        events: saturatedLags.length,
      },
      {
        bench: 'projection_lag_p99',
        value: Math.round(percentile(pacedLags, 99)),
        unit: 'ms',
        limit: 500,
        limit_of: 'target of issue 2',
        at_commands_per_s: Math.round(paced.rate),
        command_latency_p99_ms: +percentile(paced.latencies, 99).toFixed(2),
        events: pacedLags.length,
      },
    ];
  } finally {
    await pool.end();
    await projectionPool.end();
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
