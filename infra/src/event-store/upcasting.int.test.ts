import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../tests/harness/postgres.ts';
import type { EventStore, StoredEvent } from './port.ts';
import { createPostgresEventStore } from './postgres.ts';
import { checkUpcasters, withUpcasting, type UpcasterRegistry } from './upcasting.ts';

/** Version 1 of TenantRegistered had `contact` and no `company`; version 2 renamed one and added the other. */
const upcasters: UpcasterRegistry = {
  TenantRegistered: { 1: ({ contact, ...rest }) => ({ ...rest, contactName: contact, company: '' }) },
};

describe('upcasting on read', () => {
  let db: TestDatabase;
  let store: EventStore;
  let sut: EventStore;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await createPostgresEventStore(db.pool, { pollMs: 10 });
    sut = withUpcasting(store, upcasters);
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  /** Writes a version-1 TenantRegistered row the way a release before version 2 did: straight into es_events. */
  async function storeVersion1(tenantId: string): Promise<{ stream: string; row: Record<string, unknown> }> {
    const stream = `tenant-system.${tenantId}`;
    const data = { tenantId, name: 'Old Co', contact: 'Wang', method: 'email', phone: null, email: 'old@co.test' };
    const metadata = {
      tenantId: 'system',
      actor: { kind: 'system', id: 'old-release' },
      correlationId: randomUUID(),
      causationId: null,
      occurredAt: '2025-01-01T00:00:00.000Z',
      schemaVersion: 1,
    };
    await db.pool.query(
      `insert into es_events (event_id, stream_name, category, stream_version, type, data, metadata)
       values ($1, $2, 'tenant', 1, 'TenantRegistered', $3, $4)`,
      [randomUUID(), stream, JSON.stringify(data), JSON.stringify(metadata)],
    );
    return { stream, row: await storedRow(stream) };
  }

  const storedRow = async (stream: string) =>
    (await db.pool.query('select data, metadata from es_events where stream_name = $1', [stream])).rows[0]!;

  const expectVersion2 = (event: StoredEvent | undefined, tenantId: string) => {
    expect(event!.metadata.schemaVersion).toBe(2);
    expect(event!.data).toEqual({
      tenantId,
      name: 'Old Co',
      contactName: 'Wang',
      company: '',
      method: 'email',
      phone: null,
      email: 'old@co.test',
    });
  };

  it('hands out a stored version-1 event at version 2 through readStream, readAll and subscribe, and leaves the row as it was', async () => {
    const head = await sut.headPosition();
    const tenantId = randomUUID();
    const { stream, row } = await storeVersion1(tenantId);

    expectVersion2((await sut.readStream(stream))[0], tenantId);
    expectVersion2((await sut.readStream(stream, { direction: 'backwards', limit: 1 }))[0], tenantId);
    expectVersion2((await sut.readAll({ after: head, categories: ['tenant'] }))[0], tenantId);
    const seen: StoredEvent[] = [];
    const subscription = sut.subscribe({ after: head, categories: ['tenant'], onEvents: async (events) => void seen.push(...events) });
    for (let waited = 0; seen.length === 0 && waited < 5_000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    await subscription.stop();
    expectVersion2(seen[0], tenantId);

    expect(await storedRow(stream)).toEqual(row);
    expect(row).toMatchObject({ data: { contact: 'Wang' }, metadata: { schemaVersion: 1 } });
    expect((await store.readStream(stream))[0]!.data).toHaveProperty('contact', 'Wang');
  });

  it('upcasts step by step to the newest version and leaves events already there, and other types, alone', async () => {
    const chained = withUpcasting(store, {
      TenantRegistered: { ...upcasters.TenantRegistered, 2: (data) => ({ ...data, company: data.company || 'Unknown' }) },
    });
    const tenantId = randomUUID();
    const { stream } = await storeVersion1(tenantId);
    await sut.append(
      stream,
      [{ type: 'TenantApproved', data: { tenantId }, metadata: { ...(await sut.readStream(stream))[0]!.metadata, schemaVersion: 1 } }],
      1,
    );

    const [registered, approved] = await chained.readStream(stream);
    expect(registered!.metadata.schemaVersion).toBe(3);
    expect(registered!.data).toMatchObject({ contactName: 'Wang', company: 'Unknown' });
    expect(approved!.metadata.schemaVersion).toBe(1);
    expect(approved!.data).toEqual({ tenantId });
  });

  it('refuses a registry with a gap between versions', () => {
    expect(() => checkUpcasters({ TenantRegistered: { 1: (d) => d, 3: (d) => d } })).toThrow(/skip from version 1 to 3/);
    expect(() => checkUpcasters({ TenantRegistered: { 0: (d) => d } })).toThrow(/whole number/);
  });
});
