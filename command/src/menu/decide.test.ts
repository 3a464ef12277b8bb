import { describe, expect, it } from 'vitest';
import { codeOf, scenario } from '../decider-testing.ts';
import { menuDecider } from './decide.ts';
import type { MenuEvent, MenuFields } from './menu.ts';
import { builtinMenus } from '@iot/contracts';

const menu: MenuFields = {
  type: 'menu',
  name: '用户',
  routerName: 'User',
  icon: null,
  permission: 'system:user:view',
  path: '/system/user',
  component: null,
  sort: 1,
  parentId: 'system',
};
const created: MenuEvent = { type: 'MenuCreated', data: { menuId: 'm1', builtin: false, ...menu } };
const { given } = scenario(menuDecider);

describe('menu decider', () => {
  it('creates, reorders and deletes a leaf entry', () => {
    expect(given([]).when({ type: 'CreateMenu', menuId: 'm1', builtin: false, menu })).toEqual([created]);
    expect(given([created]).when({ type: 'ReorderMenu', menuId: 'm1', sort: 1, parentId: 'system' })).toEqual([]);
    expect(given([created]).when({ type: 'ReorderMenu', menuId: 'm1', sort: 5, parentId: 'system' })).toEqual([
      { type: 'MenuReordered', data: { menuId: 'm1', sort: 5, parentId: 'system' } },
    ]);
    expect(codeOf(() => given([created]).when({ type: 'DeleteMenu', menuId: 'm1', hasChildren: true }))).toBe('MENU_HAS_CHILDREN');
    expect(codeOf(() => given([created]).when({ type: 'UpdateMenu', menuId: 'm1', menu: { ...menu, parentId: 'm1' } }))).toBe('VALIDATION');
  });
  it('decides nothing for an edit with the same values, whatever the order of their keys', () => {
    const reordered = Object.fromEntries(Object.entries(menu).reverse()) as unknown as MenuFields;
    expect(given([created]).when({ type: 'UpdateMenu', menuId: 'm1', menu: reordered })).toEqual([]);
    expect(given([created]).when({ type: 'UpdateMenu', menuId: 'm1', menu: { ...reordered, name: '用户们' } })).toEqual([
      { type: 'MenuUpdated', data: { menuId: 'm1', ...menu, name: '用户们' } },
    ]);
  });
  it('built-in entries cover every area of spec §2, with names of at most 10 characters and unique ids', () => {
    expect(new Set(builtinMenus.map((m) => m.id)).size).toBe(builtinMenus.length);
    expect(builtinMenus.filter((m) => m.name.length > 10)).toEqual([]);
    const areas = builtinMenus.filter((m) => m.parentId === null).map((m) => m.id);
    expect(areas).toEqual(['home', 'operation', 'device', 'scene', 'analysis', 'rule', 'alarm', 'system', 'producttest', 'forward']);
  });
});
