import { z } from 'zod';
import { route } from '../http/route.ts';
import { idBody } from '../identity/common.ts';
import { menuCreateBody, menuNode, menuOrderBody, menuTreeQuery, menuUpdateBody } from '../identity/menu.ts';
import { perm } from '../identity/permissions.ts';

const idResult = z.object({ id: z.string() });
const tag = 'menu';

/** The platform's menu catalogue (spec §3 Menu, §5, §6): kept by the system administrator, granted to roles by tenants. */
export const menuRoutes = {
  'menu.create': route({
    method: 'POST',
    path: '/api/auth/menu',
    permission: perm.menuAdd,
    tag,
    summary: 'Add a menu entry',
    body: menuCreateBody,
    response: idResult,
    reads: ['menus'],
    errors: ['NOT_FOUND', 'CONFLICT'],
  }),
  'menu.update': route({
    method: 'PUT',
    path: '/api/auth/menu',
    permission: perm.menuEdit,
    tag,
    summary: 'Edit a menu entry',
    body: menuUpdateBody,
    response: idResult,
    reads: ['menus'],
    errors: ['NOT_FOUND'],
  }),
  'menu.reorder': route({
    method: 'PUT',
    path: '/api/auth/menu/editOrder',
    permission: perm.menuEdit,
    tag,
    summary: 'Reorder or move menu entries',
    body: menuOrderBody,
    response: z.object({ count: z.number().int() }),
    reads: ['menus'],
    errors: ['NOT_FOUND'],
  }),
  'menu.delete': route({
    method: 'DELETE',
    path: '/api/auth/menu',
    permission: perm.menuDelete,
    tag,
    summary: 'Delete a menu entry without children',
    query: idBody,
    response: idResult,
    reads: ['menus'],
    errors: ['NOT_FOUND', 'MENU_HAS_CHILDREN'],
  }),
  'menu.tree': route({
    method: 'GET',
    path: '/api/auth/menu',
    permission: 'authenticated',
    tag,
    summary: "The caller's menu tree: what the browser shows",
    query: menuTreeQuery,
    response: z.array(menuNode),
    reads: ['menus'],
  }),
  'menu.list': route({
    method: 'GET',
    path: '/api/auth/menu/list',
    permission: perm.menuList,
    tag,
    summary: 'The whole catalogue, for granting menus to roles',
    query: menuTreeQuery,
    response: z.array(menuNode),
    reads: ['menus'],
  }),
};
export type MenuRoutes = typeof menuRoutes;
