import { z } from 'zod';
import { listQuery, page } from '../envelope.ts';
import { route } from '../http/route.ts';
import { idBody } from '../identity/common.ts';
import {
  dictItemCreateBody,
  dictItemDeleteBody,
  dictItemListQuery,
  dictItemRow,
  dictItemSortable,
  dictItemUpdateBody,
  dictSortable,
  dictTypeCreateBody,
  dictTypeListQuery,
  dictTypeRow,
  dictTypeUpdateBody,
} from '../identity/dict.ts';
import { perm } from '../identity/permissions.ts';

const idResult = z.object({ id: z.string() });
const tag = 'dict';

/** Dictionary types and their items, per tenant; a type's code is unique within its tenant, an item's value within its type. */
export const dictRoutes = {
  'dict.create': route({
    method: 'POST',
    path: '/api/auth/dict',
    permission: perm.dictAdd,
    tag,
    summary: 'Create a dictionary type',
    body: dictTypeCreateBody,
    response: idResult,
    reads: ['dicts'],
    errors: ['DICT_CODE_TAKEN', 'CONFLICT'],
  }),
  'dict.update': route({
    method: 'PUT',
    path: '/api/auth/dict',
    permission: perm.dictEdit,
    tag,
    summary: 'Edit a dictionary type',
    body: dictTypeUpdateBody,
    response: idResult,
    reads: ['dicts'],
    errors: ['DICT_CODE_TAKEN', 'NOT_FOUND'],
  }),
  'dict.delete': route({
    method: 'DELETE',
    path: '/api/auth/dict',
    permission: perm.dictDelete,
    tag,
    summary: 'Delete a dictionary type and its items',
    query: idBody,
    response: idResult,
    reads: ['dicts'],
    errors: ['NOT_FOUND'],
  }),
  'dict.addItem': route({
    method: 'POST',
    path: '/api/auth/dict/item',
    permission: perm.dictAdd,
    tag,
    summary: 'Add an item to a dictionary type',
    body: dictItemCreateBody,
    response: idResult,
    reads: ['dicts'],
    errors: ['NOT_FOUND', 'DICT_VALUE_TAKEN', 'CONFLICT'],
  }),
  'dict.updateItem': route({
    method: 'PUT',
    path: '/api/auth/dict/item',
    permission: perm.dictEdit,
    tag,
    summary: 'Edit a dictionary item',
    body: dictItemUpdateBody,
    response: idResult,
    reads: ['dicts'],
    errors: ['NOT_FOUND', 'DICT_VALUE_TAKEN'],
  }),
  'dict.removeItem': route({
    method: 'DELETE',
    path: '/api/auth/dict/item',
    permission: perm.dictDelete,
    tag,
    summary: 'Remove a dictionary item',
    query: dictItemDeleteBody,
    response: idResult,
    reads: ['dicts'],
    errors: ['NOT_FOUND'],
  }),
  'dict.list': route({
    method: 'GET',
    path: '/api/auth/dict',
    permission: perm.dictList,
    tag,
    summary: 'List dictionary types',
    query: listQuery(dictSortable, dictTypeListQuery.shape),
    response: page(dictTypeRow),
    reads: ['dicts'],
  }),
  'dict.items': route({
    method: 'GET',
    path: '/api/auth/dict/item',
    permission: perm.dictList,
    tag,
    summary: 'List dictionary items (ascending by sort unless asked otherwise)',
    query: listQuery(dictItemSortable, dictItemListQuery.shape),
    response: page(dictItemRow),
    reads: ['dicts'],
  }),
};
export type DictRoutes = typeof dictRoutes;
