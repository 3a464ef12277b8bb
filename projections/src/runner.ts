import type { EventStore, StoredEvent, Subscription } from '@iot/infra/event-store/port.ts';
import type { Sql, SqlPool } from '@iot/infra/postgres/sql.ts';
import { handlesEvent, type Projection } from './projection.ts';

const checkpointSchema = `
create table if not exists projection_checkpoints (
  name text primary key,
  position text,
  updated_at timestamptz not null default now()
);`;

export interface ProjectionStatus {
  name: string;
  position: string | null;
  /** Time from an event's append to its projection, for the last event applied. */
  lastLagMs: number;
  eventsApplied: number;
}

export interface RunnerOptions {
  /** Called for every event applied, with the time from its append to its commit in the read model. */
  onLag?(projection: string, lagMs: number): void;
  onError?(projection: string, error: unknown): void;
  batchSize?: number;
}

/** Someone else (a rebuild) moved the checkpoint: the live subscription must restart from the stored one. */
class CheckpointMovedError extends Error {}

async function applyBatch(tx: Sql, projection: Projection, events: StoredEvent[]): Promise<number> {
  let applied = 0;
  for (const event of events) {
    if (!handlesEvent(projection, event.type)) continue;
    await projection.apply(tx, event);
    applied += 1;
  }
  return applied;
}

/** Reads the global log from each projection's checkpoint and writes its read model and checkpoint in one transaction. */
export function createProjectionRunner(store: EventStore, pool: SqlPool, projections: readonly Projection[], options: RunnerOptions = {}) {
  const byName = new Map(projections.map((p) => [p.name, p]));
  const running = new Map<string, Subscription>();
  const status = new Map<string, ProjectionStatus>();

  async function setup(): Promise<void> {
    await pool.query(checkpointSchema);
    for (const projection of projections) await pool.query(projection.schema);
  }

  async function storedCheckpoint(sql: Sql, name: string, lock: boolean): Promise<string | null> {
    const result = await sql.query<{ position: string | null }>(
      `select position from projection_checkpoints where name = $1${lock ? ' for update' : ''}`,
      [name],
    );
    return result.rows[0]?.position ?? null;
  }

  async function start(name: string): Promise<void> {
    const projection = byName.get(name);
    if (!projection) throw new Error(`unknown projection ${name}`);
    await pool.query(`insert into projection_checkpoints (name) values ($1) on conflict do nothing`, [name]);
    let checkpoint = await storedCheckpoint(pool, name, false);
    const current: ProjectionStatus = status.get(name) ?? { name, position: checkpoint, lastLagMs: 0, eventsApplied: 0 };
    status.set(name, current);
    const subscription = store.subscribe({
      after: checkpoint,
      limit: options.batchSize ?? 500,
      onEvents: async (events) => {
        const last = events[events.length - 1]!;
        const applied = await pool.transaction(async (tx) => {
          // Moving the checkpoint first locks its row; finding it elsewhere means a rebuild moved it.
          const moved = await tx.query(
            'update projection_checkpoints set position = $3, updated_at = now() where name = $1 and position is not distinct from $2',
            [name, checkpoint, last.position],
          );
          if (moved.rowCount === 0) throw new CheckpointMovedError();
          return applyBatch(tx, projection, events);
        });
        checkpoint = last.position;
        const now = Date.now();
        for (const event of events) {
          if (!handlesEvent(projection, event.type)) continue;
          current.lastLagMs = now - event.recordedAt.getTime();
          options.onLag?.(name, current.lastLagMs);
        }
        current.position = checkpoint;
        current.eventsApplied += applied;
      },
      onError: (error) => {
        if (error instanceof CheckpointMovedError) {
          void restart(name);
          return;
        }
        options.onError?.(name, error);
      },
    });
    running.set(name, subscription);
  }

  async function stop(name: string): Promise<void> {
    const subscription = running.get(name);
    running.delete(name);
    await subscription?.stop();
  }

  async function restart(name: string): Promise<void> {
    await stop(name);
    await start(name);
  }

  /** Drops the read model, replays the whole log into it and commits, all in one transaction. */
  async function rebuild(name: string): Promise<{ events: number }> {
    const projection = byName.get(name);
    if (!projection) throw new Error(`unknown projection ${name}; known: ${[...byName.keys()].join(', ')}`);
    const wasRunning = running.has(name);
    await stop(name);
    const count = await pool.transaction(async (tx) => {
      await tx.query(`insert into projection_checkpoints (name) values ($1) on conflict do nothing`, [name]);
      await storedCheckpoint(tx, name, true);
      for (const table of projection.tables) await tx.query(`drop table if exists ${table} cascade`);
      await tx.query(projection.schema);
      let after: string | null = null;
      let total = 0;
      for (;;) {
        const batch = await store.readAll({ after, limit: 1000 });
        if (batch.length === 0) break;
        total += await applyBatch(tx, projection, batch);
        after = batch[batch.length - 1]!.position;
      }
      await tx.query(`update projection_checkpoints set position = $2, updated_at = now() where name = $1`, [name, after]);
      return total;
    });
    status.delete(name);
    if (wasRunning) await start(name);
    return { events: count };
  }

  /** Resolves once every running projection has applied the log up to its head at the time of the call. */
  async function catchUp(timeoutMs = 10_000): Promise<void> {
    const head = await store.headPosition();
    if (!head) return;
    const deadline = Date.now() + timeoutMs;
    for (const name of running.keys()) {
      for (;;) {
        const position = await storedCheckpoint(pool, name, false);
        if (position && comparePositions(position, head) >= 0) break;
        if (Date.now() > deadline) throw new Error(`projection ${name} did not catch up within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  }

  return {
    setup,
    async startAll() {
      for (const projection of projections) await start(projection.name);
    },
    async stopAll() {
      for (const name of [...running.keys()]) await stop(name);
    },
    rebuild,
    catchUp,
    status: () => [...status.values()],
    names: () => [...byName.keys()],
  };
}

export type ProjectionRunner = ReturnType<typeof createProjectionRunner>;

/** Orders two positions of the same store; both adapters encode them as `a:b` numeric pairs. */
export function comparePositions(a: string, b: string): number {
  const [a1, a2] = a.split(':').map(BigInt) as [bigint, bigint];
  const [b1, b2] = b.split(':').map(BigInt) as [bigint, bigint];
  if (a1 !== b1) return a1 < b1 ? -1 : 1;
  if (a2 !== b2) return a2 < b2 ? -1 : 1;
  return 0;
}
