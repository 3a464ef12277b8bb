import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readModelOf, type ReadModel, type Given } from '../../../tests/fixtures/read-model.ts';
import { oplogProjection } from './oplog.ts';
import { oplogPage, type OplogFilter } from './read.ts';

let sut: ReadModel;
const log = (type: string, data: object, given: Given) => sut.given(oplogProjection, { type, data }, given);

beforeAll(async () => {
  sut = await readModelOf(oplogProjection);
  const ann = { kind: 'user', id: 'ann' } as const;
  await log(
    'UserCreated',
    { userId: 'u1', username: 'bob' },
    { tenantId: 't1', actor: ann, stream: 'user-t1.u1', at: '2026-01-01T00:00:00Z', ip: '10.0.0.1' },
  );
  await log('UserStopped', { userId: 'u1' }, { tenantId: 't1', actor: ann, stream: 'user-t1.u1', at: '2026-01-02T00:00:00Z' });
  await log(
    'DeviceCreated',
    { deviceId: 'd1', name: 'Meter 50%' },
    { tenantId: 't1', actor: { kind: 'app', id: 'ann' }, stream: 'device-t1.d1', at: '2026-01-03T00:00:00Z' },
  );
  await log(
    'RoleCreated',
    { roleId: 'r1', name: 'Ops' },
    { tenantId: 't1', actor: { kind: 'user', id: 'cat' }, stream: 'role-t1.r1', at: '2026-01-04T00:00:00Z' },
  );
  await log('RoleCreated', { roleId: 'r2', name: 'Ops' }, { tenantId: 't2', actor: ann, stream: 'role-t2.r2', at: '2026-01-05T00:00:00Z' });
});
afterAll(async () => sut?.drop());

describe('the operation log read module', () => {
  const types = async (filter: OplogFilter) =>
    (await oplogPage(sut.db, 't1', filter, { page: 1, pageSize: 10, order: 'asc', sort: 'occurredAt' })).rows.map((e) => e.eventType);

  it('pages a tenant’s entries with their metadata and target, a nameless event named by its stream’s last name', async () => {
    const page = await oplogPage(sut.db, 't1', {}, { page: 1, pageSize: 2, order: 'desc' });
    expect(page.total).toBe(4);
    expect(page.rows.map((e) => e.eventType)).toEqual(['RoleCreated', 'DeviceCreated']);
    const [created, stopped] = (await oplogPage(sut.db, 't1', { entityType: 'user' }, { page: 1, pageSize: 10, order: 'asc' })).rows;
    expect(created).toMatchObject({
      actorKind: 'user',
      actorId: 'ann',
      stream: 'user-t1.u1',
      targetName: 'bob',
      ip: '10.0.0.1',
      position: '1',
    });
    expect(created!.occurredAt).toEqual(new Date('2026-01-01T00:00:00Z'));
    expect(stopped).toMatchObject({ eventType: 'UserStopped', targetName: 'bob', ip: null });
  });

  it('filters by actor id, or by users whose names matched; by event type, aggregate, entity and time', async () => {
    expect(await types({ actor: { id: 'ann', userIds: [] } })).toEqual(['UserCreated', 'UserStopped', 'DeviceCreated']);
    // Users found by name count as users only: an app with the same id is not one of them.
    expect(await types({ actor: { id: 'a', userIds: ['ann'] } })).toEqual(['UserCreated', 'UserStopped']);
    expect(await types({ eventType: 'created' })).toEqual(['UserCreated', 'DeviceCreated', 'RoleCreated']);
    expect(await types({ entity: 'd1' })).toEqual(['DeviceCreated']);
    // A % in the entity is taken literally.
    expect(await types({ entity: '50%' })).toEqual(['DeviceCreated']);
    expect(await types({ entity: '%' })).toEqual(['DeviceCreated']);
    expect(await types({ from: '2026-01-02T00:00:00Z', to: '2026-01-03T00:00:00Z' })).toEqual(['UserStopped', 'DeviceCreated']);
  });
});
