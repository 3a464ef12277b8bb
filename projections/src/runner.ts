import type { EventStore, StoredEvent, Subscription } from '@iot/contracts/ports/event-store.ts';
import type { Sql, SqlPool } from '@iot/contracts/ports/sql.ts';
import type { Migrate } from '@iot/contracts/ports/migrations.ts';
import { handlesEvent, migrationOwnerOf, type AnyProjection } from './projection.ts';

const checkpointSchema = `
create table projection_checkpoints (
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
  /** The last failure, until the projection applies again. */
  error: string | null;
}

export interface RunnerOptions {
  /** Called for every event applied, with the time from its append to its commit in the read model. */
  onLag?(projection: string, lagMs: number): void;
  onError?(projection: string, error: unknown): void;
  batchSize?: number;
  /** Applies schema migrations (infra/src/migrate): `setup` needs it. */
  migrate?: Migrate;
  /** How long a failed projection waits before it is tried again. */
  retryMs?: number;
}

/** Someone else (a rebuild) moved a checkpoint: the live run must restart from the stored ones. */
class CheckpointMovedError extends Error {}

/** Orders two positions of the same store; both adapters encode them as `a:b` numeric pairs. */
export function comparePositions(a: string, b: string): number {
  const [a1, a2] = a.split(':').map(BigInt) as [bigint, bigint];
  const [b1, b2] = b.split(':').map(BigInt) as [bigint, bigint];
  if (a1 !== b1) return a1 < b1 ? -1 : 1;
  if (a2 !== b2) return a2 < b2 ? -1 : 1;
  return 0;
}

/** Whether a projection handles any of these event types. */
const handlesAny = (projection: AnyProjection, types: ReadonlySet<string>): boolean =>
  projection.handles === 'all' || (projection.handles as readonly string[]).some((type) => types.has(type));

const after = (position: string, checkpoint: string | null) => checkpoint === null || comparePositions(position, checkpoint) > 0;

async function applyEvents(tx: Sql, projection: AnyProjection, handled: StoredEvent[]): Promise<void> {
  if (projection.applyBatch) await projection.applyBatch(tx, handled);
  else for (const event of handled) await projection.apply(tx, event);
}

/**
 * Keeps every read model up to date from one reading of the global log. Each projection has its own
 * checkpoint; for each batch, each projection that handles some of its events writes them and moves its
 * checkpoint in one transaction of its own (a failing projection holds back only itself, and is tried
 * again after `retryMs`), and the others have their checkpoints moved together.
 */
export function createProjectionRunner(
  store: EventStore,
  pool: SqlPool,
  projections: readonly AnyProjection[],
  options: RunnerOptions = {},
) {
  const byName = new Map(projections.map((p) => [p.name, p]));
  const status = new Map<string, ProjectionStatus>(
    projections.map((p) => [p.name, { name: p.name, position: null, lastLagMs: 0, eventsApplied: 0, error: null }]),
  );
  let subscription: Subscription | null = null;
  let running = false;
  let retryTimer: NodeJS.Timeout | null = null;

  /** Applies the checkpoints' and every projection's pending migrations (through infra's migration runner). */
  async function setup(): Promise<void> {
    if (!options.migrate) throw new Error('the projection runner needs a migrate function (infra/src/migrate) to set its tables up');
    await options.migrate([
      {
        owner: 'projection_checkpoints',
        tables: ['projection_checkpoints'],
        migrations: [{ version: 1, name: 'create', sql: checkpointSchema }],
      },
      ...projections.filter((p) => p.tables.length > 0).map(migrationOwnerOf),
    ]);
  }

  async function storedCheckpoints(): Promise<Map<string, string | null>> {
    await pool.query(`insert into projection_checkpoints (name) select unnest($1::text[]) on conflict do nothing`, [[...byName.keys()]]);
    const rows = await pool.query<{ name: string; position: string | null }>(
      'select name, position from projection_checkpoints where name = any($1)',
      [[...byName.keys()]],
    );
    return new Map(rows.rows.map((r) => [r.name, r.position]));
  }

  async function startLoop(): Promise<void> {
    const checkpoints = await storedCheckpoints();
    const failed = new Set<string>();
    for (const [name, position] of checkpoints) status.get(name)!.position = position;
    // The log is read once, from the checkpoint of the projection furthest behind.
    const positions = [...checkpoints.values()];
    const from = positions.some((p) => p === null)
      ? null
      : positions.reduce((a, b) => (comparePositions(a!, b!) < 0 ? a : b), positions[0]!);

    const applyTo = async (projection: AnyProjection, pending: StoredEvent[], last: string) => {
      const name = projection.name;
      const handled = pending.filter((e) => handlesEvent(projection, e.type));
      await pool.transaction(async (tx) => {
        // Moving the checkpoint first locks its row; finding it elsewhere means a rebuild moved it.
        const moved = await tx.query(
          'update projection_checkpoints set position = $3, updated_at = now() where name = $1 and position is not distinct from $2',
          [name, checkpoints.get(name), last],
          { prepare: 'projection_checkpoint_move' },
        );
        if (moved.rowCount === 0) throw new CheckpointMovedError();
        await applyEvents(tx, projection, handled);
      });
      checkpoints.set(name, last);
      const state = status.get(name)!;
      const now = Date.now();
      for (const event of handled) {
        state.lastLagMs = now - event.recordedAt.getTime();
        options.onLag?.(name, state.lastLagMs);
      }
      Object.assign(state, { position: last, eventsApplied: state.eventsApplied + handled.length, error: null });
    };

    subscription = store.subscribe({
      after: from,
      limit: options.batchSize ?? 500,
      onEvents: async (events) => {
        const last = events[events.length - 1]!.position;
        const busy: Array<[AnyProjection, StoredEvent[]]> = [];
        const idle: string[] = [];
        // The batch's event types once, not every event against every projection's list.
        const batchTypes = new Set(events.map((e) => e.type));
        for (const projection of projections) {
          if (failed.has(projection.name)) continue;
          const checkpoint = checkpoints.get(projection.name)!;
          // A batch is in log order: a checkpoint before its first event (the usual case) leaves all of it pending,
          // one at or past its last leaves none, without comparing every event's position for every projection.
          const pending = after(events[0]!.position, checkpoint)
            ? events
            : !after(last, checkpoint)
              ? []
              : events.filter((e) => after(e.position, checkpoint));
          if (pending.length === 0) continue;
          const types = pending === events ? batchTypes : new Set(pending.map((e) => e.type));
          if (handlesAny(projection, types)) busy.push([projection, pending]);
          else idle.push(projection.name);
        }
        let moved = false;
        await Promise.all(
          busy.map(([projection, pending]) =>
            applyTo(projection, pending, last).catch((error: unknown) => {
              if (error instanceof CheckpointMovedError) moved = true;
              else fail(projection.name, error, failed);
            }),
          ),
        );
        if (idle.length > 0) {
          const olds = idle.map((name) => checkpoints.get(name) ?? null);
          const result = await pool.query<{ name: string }>(
            `update projection_checkpoints c set position = $3, updated_at = now()
             from unnest($1::text[], $2::text[]) as o(name, position)
             where c.name = o.name and c.position is not distinct from o.position
             returning c.name`,
            [idle, olds, last],
          );
          for (const { name } of result.rows) {
            checkpoints.set(name, last);
            status.get(name)!.position = last;
          }
          if (result.rowCount !== idle.length) moved = true;
        }
        if (moved) throw new CheckpointMovedError();
      },
      onError: (error) => {
        if (error instanceof CheckpointMovedError) void restart();
        else options.onError?.('runner', error);
      },
    });
  }

  function fail(name: string, error: unknown, failed: Set<string>) {
    failed.add(name);
    status.get(name)!.error = error instanceof Error ? error.message : String(error);
    options.onError?.(name, error);
    // The others go on; the failed one is tried again from its checkpoint a little later.
    retryTimer ??= setTimeout(() => {
      retryTimer = null;
      if (running) void restart();
    }, options.retryMs ?? 5_000);
  }

  async function stopLoop(): Promise<void> {
    const current = subscription;
    subscription = null;
    await current?.stop();
  }

  let restarting: Promise<void> | null = null;
  function restart(): Promise<void> {
    restarting ??= (async () => {
      await stopLoop();
      if (running) await startLoop();
    })().finally(() => {
      restarting = null;
    });
    return restarting;
  }

  /**
   * Rebuilds a read model online: its tables are created anew in a schema of their own and the log is
   * replayed into them in batches (each its own short transaction) while the live tables keep serving;
   * then, in one short transaction that locks the live tables, the last events are applied, the rebuilt
   * tables take the live ones' place and the checkpoint moves. The live run notices the moved checkpoint
   * and goes on from it.
   */
  async function rebuild(name: string): Promise<{ events: number }> {
    const projection = byName.get(name);
    if (!projection) throw new Error(`unknown projection ${name}; known: ${[...byName.keys()].join(', ')}`);
    const shadow = `rebuild_${name.replace(/[^a-z0-9_]/gi, '_')}`;
    // Unqualified names resolve to the shadow schema first: the projection's own SQL writes its rebuilt tables.
    const inShadow = async <T>(fn: (tx: Sql) => Promise<T>) =>
      pool.transaction(async (tx) => {
        await tx.query(`set local search_path = ${shadow}, public`);
        return fn(tx);
      });
    let position: string | null = null;
    let total = 0;
    const replay = async (tx: Sql, limit: number) => {
      const batch = await store.readAll({ after: position, limit });
      const handled = batch.filter((e) => handlesEvent(projection, e.type));
      if (handled.length > 0) await applyEvents(tx, projection, handled);
      total += handled.length;
      if (batch.length > 0) position = batch[batch.length - 1]!.position;
      return batch.length;
    };
    await pool.query(`drop schema if exists ${shadow} cascade; create schema ${shadow}`);
    try {
      await inShadow((tx) => tx.query(projection.schema));
      while ((await inShadow((tx) => replay(tx, 1000))) > 0);
      await inShadow(async (tx) => {
        await tx.query(`insert into projection_checkpoints (name) values ($1) on conflict do nothing`, [name]);
        await tx.query('select position from projection_checkpoints where name = $1 for update', [name]);
        for (const table of projection.tables) await tx.query(`lock table public.${table} in access exclusive mode`);
        while ((await replay(tx, 1000)) > 0);
        for (const table of projection.tables) {
          await tx.query(`drop table public.${table} cascade`);
          await tx.query(`alter table ${shadow}.${table} set schema public`);
        }
        await tx.query(`update projection_checkpoints set position = $2, updated_at = now() where name = $1`, [name, position]);
      });
      Object.assign(status.get(name)!, { position, eventsApplied: total, error: null });
      return { events: total };
    } finally {
      await pool.query(`drop schema if exists ${shadow} cascade`);
    }
  }

  /** Resolves once every projection has applied the log up to its head at the time of the call. */
  async function catchUp(timeoutMs = 10_000): Promise<void> {
    const head = await store.headPosition();
    if (!head) return;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const rows = await pool.query<{ name: string; position: string | null }>(
        'select name, position from projection_checkpoints where name = any($1)',
        [[...byName.keys()]],
      );
      const behind = rows.rows.filter((r) => !r.position || comparePositions(r.position, head) < 0).map((r) => r.name);
      if (behind.length === 0 && rows.rowCount === byName.size) return;
      if (Date.now() > deadline) throw new Error(`projections ${behind.join(', ')} did not catch up within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  return {
    setup,
    async startAll() {
      running = true;
      await startLoop();
    },
    async stopAll() {
      running = false;
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = null;
      await restarting;
      await stopLoop();
    },
    rebuild,
    catchUp,
    status: () => [...status.values()],
    names: () => [...byName.keys()],
  };
}

export type ProjectionRunner = ReturnType<typeof createProjectionRunner>;
