import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupEvent, GroupFields } from '@iot/contracts';
import { readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { groupsProjection } from './groups.ts';
import { groupAncestry, groupById, groupHasChildren, groupNames, groupsOf, groupsPage, groupSubtree } from './read.ts';

let sut: ReadModel;
async function group(tenantId: string, groupId: string, name: string, parentId: string | null, over: Partial<GroupFields> = {}) {
  const event: GroupEvent = { type: 'GroupCreated', data: { groupId, name, type: 'office', location: null, sort: 0, parentId, ...over } };
  await sut.given(groupsProjection, event, { tenantId });
}

// t1:  root ─┬─ east ── east-site ── east-room
//            └─ west (sort 1)
// t2:  other, whose parent names t1's root (a tree never crosses tenants)
beforeAll(async () => {
  sut = await readModelOf(groupsProjection);
  await group('t1', 'root', 'Root', null, { type: 'institution' });
  await group('t1', 'west', 'West', 'root', { sort: 1, location: 'Chengdu' });
  await group('t1', 'east', 'East', 'root');
  await group('t1', 'east-site', 'East site', 'east');
  await group('t1', 'east-room', 'Room', 'east-site');
  await group('t2', 'other', 'Other', 'root');
  await group('t1', 'moved', 'Moved', 'root');
  const moved: GroupEvent = {
    type: 'GroupUpdated',
    data: { groupId: 'moved', name: 'Moved', type: 'office', location: null, sort: 2, parentId: 'west' },
  };
  await sut.given(groupsProjection, moved, { tenantId: 't1' });
});
afterAll(async () => sut?.drop());

describe('the groups read module', () => {
  it('finds a group of a tenant by id, typed as stored, and none of another tenant', async () => {
    expect(await groupById(sut.db, 't1', 'west')).toMatchObject({
      id: 'west',
      parentId: 'root',
      name: 'West',
      sort: 1,
      location: 'Chengdu',
    });
    expect((await groupById(sut.db, 't1', 'west'))!.createdAt).toBeInstanceOf(Date);
    expect(await groupById(sut.db, 't2', 'west')).toBeNull();
  });

  it('walks a subtree down and an ancestry up within one tenant', async () => {
    expect((await groupSubtree(sut.db, 't1', 'east')).sort()).toEqual(['east', 'east-room', 'east-site']);
    expect((await groupSubtree(sut.db, 't1', 'west')).sort()).toEqual(['moved', 'west']);
    expect((await groupSubtree(sut.db, 't1', 'root')).length).toBe(6);
    expect(await groupSubtree(sut.db, 't2', 'east')).toEqual([]);
    expect((await groupAncestry(sut.db, 't1', 'east-room')).sort()).toEqual(['east', 'east-room', 'east-site', 'root']);
    expect(await groupAncestry(sut.db, 't2', 'other')).toEqual(['other']);
  });

  it('lists groups in their order, filtered, whole or by page', async () => {
    const names = (groups: { name: string }[]) => groups.map((g) => g.name);
    expect(names(await groupsOf(sut.db, 't1', { ids: ['root', 'east', 'west'] }))).toEqual(['East', 'Root', 'West']);
    expect(names(await groupsOf(sut.db, 't1', { name: 'EAST' }))).toEqual(['East', 'East site']);
    expect(names(await groupsOf(sut.db, 't1', { type: 'institution' }))).toEqual(['Root']);
    const byName = await groupsPage(sut.db, 't1', { parentId: 'root' }, { page: 1, pageSize: 2, sort: 'name', order: 'asc' });
    expect({ total: byName.total, names: names(byName.rows) }).toEqual({ total: 2, names: ['East', 'West'] });
  });

  it('names groups by id and tells whether a group has children', async () => {
    expect(await groupNames(sut.db, 't1', ['east', 'other'])).toEqual(new Map([['east', 'East']]));
    expect(await groupHasChildren(sut.db, 't1', 'east-site')).toBe(true);
    expect(await groupHasChildren(sut.db, 't1', 'east-room')).toBe(false);
    expect(await groupHasChildren(sut.db, 't3', 'root')).toBe(false);
  });
});
