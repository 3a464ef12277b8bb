import { z } from 'zod';
import { listQuery, page } from '../envelope.ts';
import { route } from '../http/route.ts';
import { entityId, idBody } from '../identity/common.ts';
import { perm } from '../identity/permissions.ts';
import { roleCheckQuery, roleCreateBody, roleListQuery, roleMenuBody, roleRow, roleSortable, roleUpdateBody } from '../identity/role.ts';
import { availability } from '../identity/user.ts';

const idResult = z.object({ id: z.string() });
const tag = 'role';

/** Roles of a tenant and the menus they grant (spec §3 Role, §5 'Role already exists', §6, §7 `role` paths). */
export const roleRoutes = {
  'role.create': route({
    method: 'POST',
    path: '/api/auth/role',
    permission: perm.roleAdd,
    tag,
    summary: 'Create a role',
    body: roleCreateBody,
    response: idResult,
    reads: ['roles'],
    errors: ['ROLE_EXISTS', 'NOT_FOUND', 'SCOPE_EXCEEDED'],
  }),
  'role.update': route({
    method: 'PUT',
    path: '/api/auth/role',
    permission: perm.roleEdit,
    tag,
    summary: 'Rename a role or edit its remark',
    body: roleUpdateBody,
    response: idResult,
    reads: ['roles'],
    errors: ['ROLE_EXISTS', 'NOT_FOUND'],
  }),
  'role.grant': route({
    method: 'PUT',
    path: '/api/auth/role/menu',
    permission: perm.roleGrant,
    tag,
    summary: 'Grant menus to a role',
    body: roleMenuBody,
    response: idResult,
    reads: ['roles'],
    errors: ['NOT_FOUND', 'SCOPE_EXCEEDED'],
  }),
  'role.delete': route({
    method: 'DELETE',
    path: '/api/auth/role',
    permission: perm.roleDelete,
    tag,
    summary: 'Delete a role nobody holds',
    query: idBody,
    response: idResult,
    reads: ['roles'],
    errors: ['NOT_FOUND', 'ROLE_IN_USE', 'ADMIN_PROTECTED', 'BUILTIN_ROLE'],
  }),
  'role.list': route({
    method: 'GET',
    path: '/api/auth/role',
    permission: perm.roleList,
    tag,
    summary: 'List roles',
    query: listQuery(roleSortable, roleListQuery.shape),
    response: page(roleRow),
    reads: ['roles'],
    cache: 'tenant',
  }),
  'role.menus': route({
    method: 'GET',
    path: '/api/auth/role/menu',
    permission: perm.roleList,
    tag,
    summary: 'The menus a role grants',
    query: z.object({ id: entityId }).strict(),
    response: z.object({ id: z.string(), menuIds: z.array(z.string()) }),
    reads: ['roles'],
    errors: ['NOT_FOUND'],
  }),
  'role.check': route({
    method: 'GET',
    path: '/api/auth/role/check',
    permission: perm.roleList,
    tag,
    summary: 'Is a role name free',
    query: roleCheckQuery,
    response: availability,
    reads: ['roles'],
    errors: ['NOT_FOUND'],
  }),
};
export type RoleRoutes = typeof roleRoutes;
