import { z } from 'zod';
import { groupTypes } from '../constants.ts';
import { listQuery, page } from '../envelope.ts';
import { route } from '../http/route.ts';
import { idBody } from '../identity/common.ts';
import { groupCreateBody, groupListQuery, groupNode, groupRow, groupSortable, groupUpdateBody } from '../identity/group.ts';
import { perm } from '../identity/permissions.ts';

const idResult = z.object({ id: z.string() });
const tag = 'dept';

/** The group tree of a tenant (spec §3 Group, §5 root group rule, §7 `dept` paths). */
export const groupRoutes = {
  'group.create': route({
    method: 'POST',
    path: '/api/auth/dept',
    permission: perm.groupAdd,
    tag,
    summary: 'Create a group',
    body: groupCreateBody,
    response: idResult,
    reads: ['groups'],
    errors: ['NOT_FOUND', 'ROOT_GROUP_FORBIDDEN', 'CONFLICT'],
  }),
  'group.update': route({
    method: 'PUT',
    path: '/api/auth/dept',
    permission: perm.groupEdit,
    tag,
    summary: 'Edit or move a group',
    body: groupUpdateBody,
    response: idResult,
    reads: ['groups'],
    errors: ['NOT_FOUND', 'ROOT_GROUP_FORBIDDEN', 'CONFLICT'],
  }),
  'group.delete': route({
    method: 'DELETE',
    path: '/api/auth/dept',
    permission: perm.groupDelete,
    tag,
    summary: 'Delete a leaf group without users',
    query: idBody,
    response: idResult,
    reads: ['groups'],
    errors: ['NOT_FOUND', 'ROOT_GROUP_FORBIDDEN', 'GROUP_HAS_CHILDREN', 'GROUP_IN_USE'],
  }),
  'group.tree': route({
    method: 'GET',
    path: '/api/auth/dept',
    permission: perm.groupList,
    tag,
    summary: 'The group tree, narrowed to the current station',
    query: groupListQuery,
    response: z.array(groupNode),
    reads: ['groups'],
  }),
  'group.list': route({
    method: 'GET',
    path: '/api/auth/dept/list',
    permission: perm.groupList,
    tag,
    summary: 'Groups as a paged list',
    query: listQuery(groupSortable, groupListQuery.shape),
    response: page(groupRow),
    reads: ['groups'],
  }),
  'group.types': route({
    method: 'GET',
    path: '/api/auth/dept/getDeptTypeList',
    permission: 'authenticated',
    tag,
    summary: 'Group types',
    response: z.array(z.object({ value: z.enum(groupTypes) })),
    reads: [],
  }),
};
export type GroupRoutes = typeof groupRoutes;
