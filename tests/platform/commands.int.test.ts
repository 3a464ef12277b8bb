import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '@iot/contracts';
import { handleCommand, loadState, newAggregateId, type CommandContext } from '@iot/command/handler.ts';
import { tenantDecider, tenantStream, type TenantCommand } from '@iot/command/tenant/decide.ts';
import { createPostgresEventStore } from '@iot/infra/event-store/postgres.ts';
import { VersionConflictError, type EventStore } from '@iot/infra/event-store/port.ts';
import { withUpcasting } from '@iot/infra/event-store/upcasting.ts';
import { migrator } from '@iot/infra/migrate/migrate.ts';
import { createProjectionRunner, projections, type Projection } from '@iot/projections/index.ts';
import { tenantsProjection } from '@iot/projections/tenant/tenants.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';

const context = (overrides: Partial<CommandContext> = {}): CommandContext => ({
  tenantId: 'system',
  actor: { kind: 'user', id: 'admin' },
  ...overrides,
});

const register = (tenantId: string, name = `Tenant ${tenantId.slice(0, 8)}`): TenantCommand => ({
  type: 'RegisterTenant',
  tenantId,
  name,
  contactName: 'Li',
  company: 'Acme',
  method: 'email',
  phone: null,
  email: `${tenantId.slice(0, 8)}@acme.test`,
});

describe('command handling on the PostgreSQL event store', () => {
  let db: TestDatabase;
  let store: EventStore;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await createPostgresEventStore(db.pool);
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('applies a command retried 3 times with the same idempotency key once', async () => {
    const ctx = context({ idempotencyKey: randomUUID() });
    const tenantId = newAggregateId(ctx);
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await handleCommand(store, tenantDecider, tenantStream(tenantId), register(tenantId), ctx));
    expect(results.map((r) => r.applied)).toEqual([true, false, false]);
    expect(results[2]!.events.map((e) => e.id)).toEqual(results[0]!.events.map((e) => e.id));
    expect(await store.readStream(tenantStream(tenantId))).toHaveLength(1);
  });

  it('applies concurrent retries of one request once', async () => {
    const ctx = context({ idempotencyKey: randomUUID() });
    const tenantId = newAggregateId(ctx);
    await handleCommand(store, tenantDecider, tenantStream(tenantId), register(tenantId), context());
    const approve: TenantCommand = { type: 'ApproveTenant', tenantId, adminUserId: 'u1' };
    const results = await Promise.all([1, 2, 3].map(() => handleCommand(store, tenantDecider, tenantStream(tenantId), approve, ctx)));
    expect(results.filter((r) => r.applied)).toHaveLength(1);
    expect((await store.readStream(tenantStream(tenantId))).map((e) => e.type)).toEqual(['TenantRegistered', 'TenantApproved']);
  });

  it('stamps the metadata: tenant, actor, correlation, causation, time, schema version', async () => {
    const tenantId = randomUUID();
    const result = await handleCommand(
      store,
      tenantDecider,
      tenantStream(tenantId),
      register(tenantId),
      context({ correlationId: 'corr-1', causationId: 'cause-1', ip: '10.0.0.9' }),
    );
    expect(result.events[0]!.metadata).toMatchObject({
      tenantId: 'system',
      actor: { kind: 'user', id: 'admin' },
      correlationId: 'corr-1',
      causationId: 'cause-1',
      schemaVersion: 1,
      ip: '10.0.0.9',
    });
    expect(Date.parse(result.events[0]!.metadata.occurredAt)).not.toBeNaN();
  });

  it('decides again on a version conflict, so two racing commands both land and neither event is lost', async () => {
    const tenantId = randomUUID();
    await handleCommand(store, tenantDecider, tenantStream(tenantId), register(tenantId), context());
    await handleCommand(store, tenantDecider, tenantStream(tenantId), { type: 'ApproveTenant', tenantId, adminUserId: 'u1' }, context());
    // Stop and start race; whichever order they land in, both are decided on the state they see.
    const outcomes = await Promise.allSettled([
      handleCommand(store, tenantDecider, tenantStream(tenantId), { type: 'StopTenant', tenantId }, context()),
      handleCommand(store, tenantDecider, tenantStream(tenantId), { type: 'StopTenant', tenantId }, context()),
    ]);
    expect(outcomes.every((o) => o.status === 'fulfilled')).toBe(true);
    const types = (await store.readStream(tenantStream(tenantId))).map((e) => e.type);
    expect(types).toEqual(['TenantRegistered', 'TenantApproved', 'TenantStopped']);
  });

  it('answers CONFLICT after a few retries when the stream keeps moving', async () => {
    const tenantId = randomUUID();
    let appends = 0;
    const alwaysMoving: EventStore = {
      ...store,
      readStream: (s, o) => store.readStream(s, o),
      append: async (s) => {
        appends += 1;
        throw new VersionConflictError(s, 0, 1);
      },
    };
    const error = await handleCommand(alwaysMoving, tenantDecider, tenantStream(tenantId), register(tenantId), context(), {
      retries: 3,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('CONFLICT');
    expect(appends).toBe(4);
  });

  it('reads an aggregate as it was at a past time', async () => {
    const tenantId = randomUUID();
    await handleCommand(store, tenantDecider, tenantStream(tenantId), register(tenantId), context());
    await new Promise((r) => setTimeout(r, 20));
    const before = new Date();
    await new Promise((r) => setTimeout(r, 20));
    await handleCommand(store, tenantDecider, tenantStream(tenantId), { type: 'ApproveTenant', tenantId, adminUserId: 'u' }, context());
    expect((await loadState(store, tenantDecider, tenantStream(tenantId), { toTime: before })).state.status).toBe('underReview');
    expect((await loadState(store, tenantDecider, tenantStream(tenantId))).state.status).toBe('approved');
  });

  it('upcasts an old event version on read without rewriting it', async () => {
    const tenantId = randomUUID();
    const stream = tenantStream(tenantId);
    // A v1 TenantRegistered had `contact` instead of `contactName` and no `company`.
    await store.append(
      stream,
      [
        {
          type: 'TenantRegistered',
          data: { tenantId, name: 'Old Co', contact: 'Wang', method: 'email', phone: null, email: 'old@co.test' },
          metadata: {
            tenantId,
            actor: { kind: 'system', id: 't' },
            correlationId: 'c',
            causationId: null,
            occurredAt: new Date().toISOString(),
            schemaVersion: 1,
          },
        },
      ],
      0,
    );
    const upcasting = withUpcasting(store, {
      TenantRegistered: { 1: ({ contact, ...rest }) => ({ ...rest, contactName: contact, company: '' }) },
    });
    const [event] = await upcasting.readStream(stream);
    expect(event!.data).toMatchObject({ contactName: 'Wang', company: '' });
    expect(event!.metadata.schemaVersion).toBe(2);
    const [stored] = await store.readStream(stream);
    expect(stored!.data).toHaveProperty('contact', 'Wang');
    await expect(db.pool.query(`update es_events set data = '{}' where stream_name = $1`, [stream])).rejects.toThrow(/append-only/);
  });
});

describe('projection runner', () => {
  let db: TestDatabase;
  let store: EventStore;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await createPostgresEventStore(db.pool);
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('rebuilds a read model from zero into the same rows as the live run', async () => {
    const runner = createProjectionRunner(store, db.pool, projections, { migrate: migrator(db.pool) });
    await runner.setup();
    await runner.startAll();
    const ids = Array.from({ length: 60 }, () => randomUUID());
    await Promise.all(
      ids.map(async (id, i) => {
        await handleCommand(store, tenantDecider, tenantStream(id), register(id), context());
        if (i % 3 === 0)
          await handleCommand(
            store,
            tenantDecider,
            tenantStream(id),
            { type: 'ApproveTenant', tenantId: id, adminUserId: `u${i}` },
            context(),
          );
        if (i % 3 === 1)
          await handleCommand(store, tenantDecider, tenantStream(id), { type: 'RejectTenant', tenantId: id, reason: `r${i}` }, context());
        if (i % 6 === 0) await handleCommand(store, tenantDecider, tenantStream(id), { type: 'StopTenant', tenantId: id }, context());
      }),
    );
    await runner.catchUp();
    const snapshot = async () => (await db.pool.query('select * from rm_tenants order by id')).rows;
    const live = await snapshot();
    expect(live).toHaveLength(60);
    expect(live.filter((r) => r.status === 'stopped')).toHaveLength(10);

    // Damage the read model: a rebuild must not depend on what is there.
    await db.pool.query(`update rm_tenants set status = 'rejected', name = name || ' corrupt'`);
    const result = await runner.rebuild(tenantsProjection.name);
    expect(result.events).toBe(60 + 20 + 20 + 10);
    expect(await snapshot()).toEqual(live);

    // The live run goes on after the rebuild.
    const late = randomUUID();
    await handleCommand(store, tenantDecider, tenantStream(late), register(late), context());
    await runner.catchUp();
    expect((await db.pool.query('select id from rm_tenants where id = $1', [late])).rowCount).toBe(1);
    await runner.stopAll();
  });

  it('holds back only the failing projection, and tries it again until it applies', async () => {
    let poisoned = true;
    const flaky: Projection = {
      name: 'flaky',
      tables: ['rm_flaky'],
      schema: 'create table if not exists rm_flaky (id text primary key)',
      handles: ['TenantRegistered'],
      async apply(tx, event) {
        if (poisoned && String(event.data.name).startsWith('Flaky')) throw new Error('not yet');
        await tx.query('insert into rm_flaky (id) values ($1) on conflict do nothing', [event.data.tenantId]);
      },
    };
    const errors: string[] = [];
    const runner = createProjectionRunner(store, db.pool, [flaky, tenantsProjection], {
      migrate: migrator(db.pool),
      retryMs: 100,
      onError: (name) => errors.push(name),
    });
    await runner.setup();
    await runner.startAll();
    const id = randomUUID();
    await handleCommand(store, tenantDecider, tenantStream(id), register(id, 'Flaky Ltd'), context());
    for (let i = 0; i < 100 && errors.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(errors).toContain('flaky');
    // The healthy projection went on.
    for (let i = 0; i < 100 && (await db.pool.query('select 1 from rm_tenants where id = $1', [id])).rowCount === 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect((await db.pool.query('select 1 from rm_tenants where id = $1', [id])).rowCount).toBe(1);
    expect(runner.status().find((s) => s.name === 'flaky')!.error).toBe('not yet');

    poisoned = false;
    await runner.catchUp(5_000);
    expect((await db.pool.query('select 1 from rm_flaky where id = $1', [id])).rowCount).toBe(1);
    expect(runner.status().find((s) => s.name === 'flaky')!.error).toBeNull();
    await runner.stopAll();
  });

  it('writes the read model and the checkpoint together: a failing event leaves both where they were', async () => {
    const failing: Projection = {
      name: 'failing',
      tables: ['rm_failing'],
      schema: 'create table if not exists rm_failing (id text primary key)',
      handles: ['TenantRegistered'],
      async apply(tx, event) {
        await tx.query('insert into rm_failing (id) values ($1)', [event.data.tenantId]);
        if (String(event.data.name).startsWith('Poison')) throw new Error('poison event');
      },
    };
    const errors: unknown[] = [];
    const runner = createProjectionRunner(store, db.pool, [failing], { migrate: migrator(db.pool), onError: (_n, e) => errors.push(e) });
    await runner.setup();
    await runner.startAll();
    await runner.catchUp();
    const before = (await db.pool.query<{ position: string }>(`select position from projection_checkpoints where name = 'failing'`))
      .rows[0]!.position;
    const rowsBefore = (await db.pool.query('select count(*)::int as n from rm_failing')).rows[0]!.n;
    const poison = randomUUID();
    await handleCommand(store, tenantDecider, tenantStream(poison), register(poison, 'Poison Ltd'), context());
    for (let i = 0; i < 100 && errors.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    await runner.stopAll();
    expect(errors.length).toBeGreaterThan(0);
    expect(
      (await db.pool.query<{ position: string }>(`select position from projection_checkpoints where name = 'failing'`)).rows[0]!.position,
    ).toBe(before);
    expect((await db.pool.query('select count(*)::int as n from rm_failing')).rows[0]!.n).toBe(rowsBefore);
  });
});
