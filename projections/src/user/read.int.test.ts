import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MenuEvent, RoleEvent, UserEvent, UserProfile } from '@iot/contracts';
import { menuEntry, readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { menusProjection } from '../menu/menus.ts';
import { rolesProjection } from '../role/roles.ts';
import { usersProjection } from './users.ts';
import {
  anyUserInGroup,
  anyUserWithRole,
  userById,
  userByAccount,
  userByIdAnyTenant,
  userContacts,
  userIdsInGroups,
  userIdsNamedLike,
  usernamesById,
  userPermissions,
  userPositions,
  usersPage,
} from './read.ts';

let sut: ReadModel;
const page = (over: Partial<{ page: number; pageSize: number; sort: string; order: 'asc' | 'desc' }> = {}) => ({
  page: 1,
  pageSize: 20,
  order: 'asc' as const,
  sort: 'username',
  ...over,
});

const profile = (username: string, over: Partial<UserProfile> = {}): UserProfile => ({
  username,
  email: `${username.toLowerCase()}@mail.test`,
  phone: null,
  sex: 'female',
  position: null,
  groupId: null,
  roleIds: [],
  description: null,
  homePage: null,
  ...over,
});
async function user(tenantId: string, userId: string, fields: UserProfile, at: string, admin = false) {
  const event: UserEvent = { type: 'UserCreated', data: { userId, ...fields, isSystemAdmin: false, isTenantAdmin: admin } };
  await sut.given(usersProjection, event, { tenantId, at });
}

beforeAll(async () => {
  sut = await readModelOf(usersProjection, rolesProjection, menusProjection);
  await user(
    't1',
    'ann',
    profile('Ann', { groupId: 'east', roleIds: ['ops'], position: 'engineer', phone: '13800000001' }),
    '2026-01-01T00:00:00Z',
  );
  await user('t1', 'bob', profile('bob', { groupId: 'west', roleIds: ['ops', 'foreign'], position: 'engineer' }), '2026-01-02T00:00:00Z');
  await user('t1', 'cat', profile('Cat', { email: 'BOB@other.test', position: 'manager' }), '2026-01-03T00:00:00Z', true);
  await user('t2', 'dan', profile('Dan', { groupId: 'east', roleIds: ['ops'] }), '2026-01-04T00:00:00Z');
  await sut.given(usersProjection, { type: 'UserStopped', data: { userId: 'cat' } } satisfies UserEvent, { tenantId: 't1' });

  for (const [id, permission] of [
    ['devices', 'iot:device:list'],
    ['users', 'auth:user:list'],
    ['folder', null],
    ['gone', 'auth:gone:x'],
  ] as const)
    await sut.given(menusProjection, menuEntry(id, permission), { tenantId: 'system' });
  await sut.given(menusProjection, { type: 'MenuDeleted', data: { menuId: 'gone' } } satisfies MenuEvent, { tenantId: 'system' });
  const role = (roleId: string, menuIds: string[]): RoleEvent => ({
    type: 'RoleCreated',
    data: { roleId, name: roleId, remark: null, menuIds, builtin: null },
  });
  await sut.given(rolesProjection, role('ops', ['devices', 'folder', 'gone']), { tenantId: 't1' });
  // A role of another tenant grants nothing in this one, whatever a user's row names.
  await sut.given(rolesProjection, role('foreign', ['users']), { tenantId: 't2' });
});
afterAll(async () => sut?.drop());

describe('the users read module', () => {
  it('finds a user of a tenant by id, typed as stored, and no user of another tenant', async () => {
    const ann = await userById(sut.db, 't1', 'ann');
    expect(ann).toMatchObject({ id: 'ann', tenantId: 't1', username: 'Ann', groupId: 'east', roleIds: ['ops'], status: 'enabled' });
    expect(ann!.createdAt).toEqual(new Date('2026-01-01T00:00:00Z'));
    expect(ann!.passwordChangedAt).toBeNull();
    expect((await userById(sut.db, 't1', 'cat'))!.status).toBe('stopped');
    expect(await userById(sut.db, 't2', 'ann')).toBeNull();
    expect((await userByIdAnyTenant(sut.db, 'dan'))!.tenantId).toBe('t2');
  });

  it('finds the user a login names by username or email in any case, a username before another user’s email', async () => {
    expect((await userByAccount(sut.db, 'ANN'))!.id).toBe('ann');
    expect((await userByAccount(sut.db, 'ann@MAIL.test'))!.id).toBe('ann');
    // "bob@other.test" is Cat's email, but no username; "Bob" is Bob's username.
    expect((await userByAccount(sut.db, 'bob@other.test'))!.id).toBe('cat');
    expect((await userByAccount(sut.db, 'BOB'))!.id).toBe('bob');
    expect(await userByAccount(sut.db, 'nobody')).toBeNull();
  });

  it('pages a tenant’s users: filtered by groups, text, status, role and position, sorted as asked', async () => {
    const names = async (filter: Parameters<typeof usersPage>[2], p = page()) =>
      (await usersPage(sut.db, 't1', filter, p)).rows.map((u) => u.username);
    expect(await names({})).toEqual(['Ann', 'bob', 'Cat']);
    expect(await names({}, page({ sort: 'createdAt', order: 'desc' }))).toEqual(['Cat', 'bob', 'Ann']);
    expect(await names({ groupIds: ['east', 'north'] })).toEqual(['Ann']);
    expect(await names({ search: '0000001' })).toEqual(['Ann']);
    expect(await names({ search: 'other.test' })).toEqual(['Cat']);
    expect(await names({ username: 'B' })).toEqual(['bob']);
    expect(await names({ status: 'stopped' })).toEqual(['Cat']);
    expect(await names({ roleId: 'ops' })).toEqual(['Ann', 'bob']);
    expect(await names({ position: 'engin', groupId: 'west' })).toEqual(['bob']);
    const second = await usersPage(sut.db, 't1', {}, page({ page: 2, pageSize: 2 }));
    expect({ total: second.total, rows: second.rows.map((u) => u.id) }).toEqual({ total: 3, rows: ['cat'] });
    expect(second.rows[0]).not.toHaveProperty('page_total__');
    expect((await usersPage(sut.db, 't1', {}, page({ page: 5 }))).total).toBe(3);
  });

  it('answers the smaller questions: positions, names by id, ids by name or group, users in a group or with a role', async () => {
    expect(await userPositions(sut.db, 't1')).toEqual(['engineer', 'manager']);
    expect(await usernamesById(sut.db, ['ann', 'dan', 'ghost'])).toEqual(
      new Map([
        ['ann', 'Ann'],
        ['dan', 'Dan'],
      ]),
    );
    expect((await userIdsNamedLike(sut.db, ['t1'], 'A')).sort()).toEqual(['ann', 'cat']);
    expect(await userIdsNamedLike(sut.db, ['t2'], 'ann')).toEqual([]);
    expect(await userIdsInGroups(sut.db, 't1', ['east'])).toEqual(['ann']);
    expect(await anyUserInGroup(sut.db, 't1', 'west')).toBe(true);
    expect(await anyUserInGroup(sut.db, 't2', 'west')).toBe(false);
    expect(await anyUserWithRole(sut.db, 't1', 'ops')).toBe(true);
    expect(await anyUserWithRole(sut.db, 't1', 'auditor')).toBe(false);
    expect((await userContacts(sut.db)).map((u) => u.id)).toEqual(['ann', 'bob', 'cat', 'dan']);
  });

  it('gives a user the permissions of their own tenant’s roles’ menus, not of a deleted menu or another tenant’s role', async () => {
    expect([...(await userPermissions(sut.db, 'bob'))]).toEqual(['iot:device:list']);
    expect([...(await userPermissions(sut.db, 'cat'))]).toEqual([]);
    expect([...(await userPermissions(sut.db, 'ghost'))]).toEqual([]);
  });
});
