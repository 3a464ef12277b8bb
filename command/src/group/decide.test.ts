import { describe, expect, it } from 'vitest';
import { codeOf, scenario } from '../decider-testing.ts';
import { groupDecider } from './decide.ts';
import type { GroupEvent, GroupFields } from './group.ts';

const root: GroupFields = { name: 'HQ', type: 'office', location: null, sort: 0, parentId: null };
const child: GroupFields = { ...root, name: 'Site', type: 'site', parentId: 'g0' };
const rootCreated: GroupEvent = { type: 'GroupCreated', data: { groupId: 'g0', ...root } };
const childCreated: GroupEvent = { type: 'GroupCreated', data: { groupId: 'g1', ...child } };
const { given } = scenario(groupDecider);

describe('group decider', () => {
  it('lets the tenant admin create a root group and anyone with the permission a child group', () => {
    expect(given([]).when({ type: 'CreateGroup', groupId: 'g0', byTenantAdmin: true, group: root })).toEqual([rootCreated]);
    expect(given([]).when({ type: 'CreateGroup', groupId: 'g1', byTenantAdmin: false, group: child })).toEqual([childCreated]);
  });
  it('refuses a root group to a non-root user, on create, delete and move (spec §5)', () => {
    expect(codeOf(() => given([]).when({ type: 'CreateGroup', groupId: 'g0', byTenantAdmin: false, group: root }))).toBe(
      'ROOT_GROUP_FORBIDDEN',
    );
    expect(
      codeOf(() =>
        given([rootCreated]).when({ type: 'DeleteGroup', groupId: 'g0', byTenantAdmin: false, hasChildren: false, hasUsers: false }),
      ),
    ).toBe('ROOT_GROUP_FORBIDDEN');
    expect(
      codeOf(() =>
        given([childCreated]).when({ type: 'UpdateGroup', groupId: 'g1', byTenantAdmin: false, group: { ...child, parentId: null } }),
      ),
    ).toBe('ROOT_GROUP_FORBIDDEN');
  });
  it('deletes a leaf group without users only', () => {
    expect(
      codeOf(() =>
        given([rootCreated]).when({ type: 'DeleteGroup', groupId: 'g0', byTenantAdmin: true, hasChildren: true, hasUsers: false }),
      ),
    ).toBe('GROUP_HAS_CHILDREN');
    expect(
      codeOf(() =>
        given([childCreated]).when({ type: 'DeleteGroup', groupId: 'g1', byTenantAdmin: false, hasChildren: false, hasUsers: true }),
      ),
    ).toBe('GROUP_IN_USE');
    expect(
      given([childCreated]).when({ type: 'DeleteGroup', groupId: 'g1', byTenantAdmin: false, hasChildren: false, hasUsers: false }),
    ).toEqual([{ type: 'GroupDeleted', data: { groupId: 'g1' } }]);
  });
  it('decides nothing for an edit with the same values, whatever the order of their keys', () => {
    // A stored payload comes back with its keys in another order than the request's.
    const stored: GroupEvent = {
      type: 'GroupCreated',
      data: { sort: 0, parentId: 'g0', groupId: 'g1', type: 'site', name: 'Site', location: null },
    };
    const edit: GroupFields = { location: null, parentId: 'g0', name: 'Site', sort: 0, type: 'site' };
    expect(given([stored]).when({ type: 'UpdateGroup', groupId: 'g1', byTenantAdmin: false, group: edit })).toEqual([]);
    expect(given([stored]).when({ type: 'UpdateGroup', groupId: 'g1', byTenantAdmin: false, group: { ...edit, sort: 1 } })).toEqual([
      { type: 'GroupUpdated', data: { groupId: 'g1', ...edit, sort: 1 } },
    ]);
  });
});
