import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltinRole, RoleEvent } from '@iot/contracts';
import { menuEntry, readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { menusProjection } from '../menu/menus.ts';
import { rolesProjection } from './roles.ts';
import { menuIdsOfRoles, permissionsOfRoles, roleById, roleNames, roleNameTaken, rolesByIds, rolesPage } from './read.ts';

let sut: ReadModel;
const role = (roleId: string, name: string, menuIds: string[], builtin: BuiltinRole | null = null): RoleEvent => ({
  type: 'RoleCreated',
  data: { roleId, name, remark: null, menuIds, builtin },
});

beforeAll(async () => {
  sut = await readModelOf(rolesProjection, menusProjection);
  for (const [id, permission] of [
    ['devices', 'iot:device:list'],
    ['alarms', 'iot:alarm:list'],
    ['folder', null],
  ] as const)
    await sut.given(menusProjection, menuEntry(id, permission), { tenantId: 'system' });
  await sut.given(rolesProjection, role('operator', '运维人员', ['devices', 'folder'], 'operator'), {
    tenantId: 't1',
    at: '2026-01-01T00:00:00Z',
  });
  await sut.given(rolesProjection, role('watch', 'Watchers', ['alarms']), { tenantId: 't1', at: '2026-01-02T00:00:00Z' });
  await sut.given(rolesProjection, role('theirs', 'Watchers', ['alarms', 'devices']), { tenantId: 't2' });
  await sut.given(
    rolesProjection,
    { type: 'RoleMenusGranted', data: { roleId: 'watch', menuIds: ['alarms', 'devices'] } } satisfies RoleEvent,
    {
      tenantId: 't1',
    },
  );
});
afterAll(async () => sut?.drop());

describe('the roles read module', () => {
  it('finds a role of a tenant with the menus it grants, and none of another tenant', async () => {
    expect(await roleById(sut.db, 't1', 'watch')).toMatchObject({ name: 'Watchers', menuIds: ['alarms', 'devices'], builtin: null });
    expect((await roleById(sut.db, 't1', 'operator'))!.builtin).toBe('operator');
    expect(await roleById(sut.db, 't1', 'theirs')).toBeNull();
    expect((await rolesByIds(sut.db, 't1', ['watch', 'theirs', 'operator'])).map((r) => r.id)).toEqual(['watch', 'operator']);
  });

  it('pages a tenant’s roles by name', async () => {
    const all = await rolesPage(sut.db, 't1', {}, { page: 1, pageSize: 10, order: 'desc' });
    expect({ total: all.total, ids: all.rows.map((r) => r.id) }).toEqual({ total: 2, ids: ['watch', 'operator'] });
    expect(
      (await rolesPage(sut.db, 't1', { name: 'watch' }, { page: 1, pageSize: 10, order: 'asc', sort: 'name' })).rows.map((r) => r.id),
    ).toEqual(['watch']);
  });

  it('gives the menus and permissions of a tenant’s roles, never another tenant’s', async () => {
    expect((await menuIdsOfRoles(sut.db, 't1', ['operator', 'theirs'])).sort()).toEqual(['devices', 'folder']);
    expect((await permissionsOfRoles(sut.db, 't1', ['operator', 'watch'])).sort()).toEqual(['iot:alarm:list', 'iot:device:list']);
    expect(await permissionsOfRoles(sut.db, 't1', ['theirs'])).toEqual([]);
    expect(await permissionsOfRoles(sut.db, 't1', [])).toEqual([]);
  });

  it('tells whether another role of the tenant has a name in any case, and lists every name', async () => {
    expect(await roleNameTaken(sut.db, 't1', 'WATCHERS', 'new')).toBe(true);
    expect(await roleNameTaken(sut.db, 't1', 'watchers', 'watch')).toBe(false);
    expect(await roleNameTaken(sut.db, 't3', 'watchers', 'new')).toBe(false);
    expect((await roleNames(sut.db)).map((r) => `${r.tenantId}/${r.name}`).sort()).toEqual(['t1/Watchers', 't1/运维人员', 't2/Watchers']);
  });
});
