import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sceneFields, type SceneEvent } from '@iot/contracts';
import type { Dispatch, DispatchedCommand } from '@iot/contracts/ports/dispatch.ts';
import { sceneDispatchers } from '@iot/command/scene/handlers.ts';
import { createPostgresEventStore } from '@iot/infra/event-store/postgres.ts';
import type { EventStore } from '@iot/infra/event-store/port.ts';
import { createSqlPool, type SqlPool } from '@iot/infra/postgres/sql.ts';
import type { AnyProjection } from '@iot/projections/projection.ts';
import { sceneLogProjection } from '@iot/projections/scene/log.ts';
import { scenesProjection } from '@iot/projections/scene/scenes.ts';
import { createSceneScheduler } from '@iot/projections/scene/scheduler.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';

const TENANT = 't1';
let db: TestDatabase;
let second: SqlPool;
const stores: EventStore[] = [];

async function given(projection: AnyProjection, event: SceneEvent) {
  await projection.apply(db.pool, {
    id: randomUUID(),
    streamName: `scene-${TENANT}.${randomUUID()}`,
    version: 1,
    type: event.type,
    data: event.data,
    metadata: {
      tenantId: TENANT,
      actor: { kind: 'user', id: 'tester' },
      correlationId: randomUUID(),
      causationId: null,
      occurredAt: new Date().toISOString(),
      schemaVersion: 1,
    },
    position: '1',
    recordedAt: new Date(),
  });
}

/** Both schedulers reach each claim before either makes it: the race for every fire time is forced, not hoped for. */
function rendezvous(parties: number) {
  const waiting = new Map<string, Array<() => void>>();
  return (key: string) =>
    new Promise<void>((resolve) => {
      const here = [...(waiting.get(key) ?? []), resolve];
      if (here.length < parties) return void waiting.set(key, here);
      waiting.delete(key);
      here.forEach((go) => go());
    });
}

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(scenesProjection.schema);
  await db.pool.query(sceneLogProjection.schema);
  second = createSqlPool(db.url, 10);
  // Two processes: each with its own pool and event store over the one database.
  stores.push(await createPostgresEventStore(db.pool), await createPostgresEventStore(second));
});
afterAll(async () => {
  for (const store of stores) await store.close();
  await second?.end();
  await db?.drop();
});

describe('a timing scene with two schedulers running', () => {
  it('fires each of its fire times exactly once, whichever scheduler claims it', async () => {
    const fields = sceneFields.parse({
      name: 'Every second',
      triggers: [{ type: 'timing', cron: '* * * * * *', timeZone: 'UTC' }],
      actions: [{ type: 'setProperty', deviceId: 'd1', identifier: 'switch', value: 1 }],
    });
    await given(scenesProjection, { type: 'SceneCreated', data: { sceneId: 's1', enabled: true, ...fields } });

    const sent: string[] = [];
    const meet = rendezvous(2);
    let racing = true;
    const dispatchOf = (store: EventStore): Dispatch => {
      const scenes = sceneDispatchers({ store });
      return async (command: DispatchedCommand, metadata) => {
        switch (command.type) {
          case 'StartSceneRun':
            if (racing) await meet(command.runId);
            return scenes.StartSceneRun(command, metadata);
          case 'FinishSceneRun':
            return scenes.FinishSceneRun(command, metadata);
          case 'SendDeviceCommand':
            sent.push(metadata.correlationId);
            return { position: null };
          default:
            throw new Error(`not expected here: ${command.type}`);
        }
      };
    };
    const [a, b] = stores.map((store) =>
      createSceneScheduler({
        db: db.pool,
        ports: {
          dispatch: dispatchOf(store),
          online: async () => true,
          latest: async () => ({}),
          runsDone: async () => 0,
          notify: async () => 0,
        },
      }),
    );
    const from = new Date('2026-03-02T04:00:00.500Z');
    const to = new Date('2026-03-02T04:00:05.500Z');

    const [ranByA, ranByB] = await Promise.all([a!.tick(from, to), b!.tick(from, to)]);

    const fires = [1, 2, 3, 4, 5].map((s) => `s1.t0.${Date.parse(`2026-03-02T04:00:0${s}.000Z`)}`);
    expect([...ranByA, ...ranByB].sort()).toEqual(fires.sort());
    expect(ranByA.filter((run) => ranByB.includes(run))).toEqual([]);
    expect(sent.sort()).toEqual(fires.sort());
    const started = await db.pool.query<{ n: number }>(`select count(*)::int as n from es_events where type = 'SceneRunStarted'`);
    expect(started.rows[0]!.n).toBe(5);
    // A later tick over the same window (a restarted process) claims nothing again.
    racing = false;
    expect(await a!.tick(from, to)).toEqual([]);
  });
});
