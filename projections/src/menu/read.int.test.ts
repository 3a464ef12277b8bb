import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MenuEvent, MenuFields } from '@iot/contracts';
import { readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { menusProjection } from './menus.ts';
import { allMenus, menuHasChildren, menusByIds, permissionsOfMenus } from './read.ts';

let sut: ReadModel;
const fields = (name: string, over: Partial<MenuFields> = {}): MenuFields => ({
  type: 'menu',
  name,
  routerName: null,
  icon: null,
  permission: null,
  path: `/${name}`,
  component: null,
  sort: 0,
  parentId: null,
  ...over,
});

beforeAll(async () => {
  sut = await readModelOf(menusProjection);
  const created = (menuId: string, f: MenuFields): MenuEvent => ({
    type: 'MenuCreated',
    data: { menuId, builtin: menuId !== 'mine', ...f },
  });
  await sut.given(menusProjection, created('system', fields('System', { sort: 2, icon: 'gear' })), { tenantId: 'system' });
  await sut.given(menusProjection, created('users', fields('Users', { parentId: 'system', permission: 'auth:user:list' })), {
    tenantId: 'system',
  });
  await sut.given(
    menusProjection,
    created('add', fields('Add', { type: 'button', parentId: 'users', permission: 'auth:user:add', sort: 1 })),
    { tenantId: 'system' },
  );
  await sut.given(menusProjection, created('mine', fields('Mine', { permission: 'auth:user:list', sort: 1 })), { tenantId: 'system' });
  await sut.given(menusProjection, { type: 'MenuReordered', data: { menuId: 'mine', sort: 0, parentId: 'system' } } satisfies MenuEvent, {
    tenantId: 'system',
  });
});
afterAll(async () => sut?.drop());

describe('the menus read module', () => {
  it('reads the whole catalogue in its order, typed as stored', async () => {
    const menus = await allMenus(sut.db);
    expect(menus.map((m) => m.id)).toEqual(['mine', 'users', 'add', 'system']);
    expect(menus[3]).toMatchObject({
      id: 'system',
      parentId: null,
      type: 'menu',
      name: 'System',
      icon: 'gear',
      path: '/System',
      builtin: true,
      sort: 2,
    });
    expect(menus[0]).toMatchObject({ parentId: 'system', builtin: false });
  });

  it('finds entries by id, tells whether one has children, and gives their permissions once each', async () => {
    expect((await menusByIds(sut.db, ['add', 'gone'])).map((m) => ({ id: m.id, parentId: m.parentId, permission: m.permission }))).toEqual([
      { id: 'add', parentId: 'users', permission: 'auth:user:add' },
    ]);
    expect(await menuHasChildren(sut.db, 'system')).toBe(true);
    expect(await menuHasChildren(sut.db, 'add')).toBe(false);
    expect((await permissionsOfMenus(sut.db, ['system', 'users', 'mine', 'add'])).sort()).toEqual(['auth:user:add', 'auth:user:list']);
  });
});
