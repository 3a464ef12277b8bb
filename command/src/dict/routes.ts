import { z } from 'zod';
import {
  dictItemCreateBody,
  dictItemDeleteBody,
  dictItemUpdateBody,
  dictTypeCreateBody,
  dictTypeUpdateBody,
  envelope,
  idBody,
  perm,
} from '@iot/contracts';
import type { RoutesPlugin } from '@iot/infra/http/app.ts';
import type { AppContext } from '@iot/infra/http/context.ts';
import { ok } from '@iot/infra/http/envelope.ts';
import { principalOf } from '@iot/infra/http/principal.ts';
import { newAggregateId } from '../handler.ts';
import { contextOf } from '../context.ts';
import { runCommand } from '../auth/commands.ts';
import { dictDecider, dictStream } from './decide.ts';

const idResult = envelope(z.object({ id: z.string() }));

const codeTaken = async (db: AppContext['db'], tenantId: string, code: string, exceptId = '') =>
  (await db.query('select 1 from rm_dict_types where tenant_id = $1 and code = $2 and id <> $3', [tenantId, code, exceptId])).rowCount > 0;

/** Dictionary types and their items, per tenant. */
export const dictRoutes: RoutesPlugin = async (app, ctx) => {
  const { db } = ctx;

  app.post(
    '/api/auth/dict',
    { config: { permission: perm.dictAdd }, schema: { tags: ['dict'], body: dictTypeCreateBody, response: { 200: idResult } } },
    async (request) => {
      const { tenantId } = principalOf(request);
      const typeId = newAggregateId(contextOf(request));
      await runCommand(ctx, request, dictDecider, dictStream(tenantId, typeId), {
        type: 'CreateDictType',
        typeId,
        ...request.body,
        codeTaken: await codeTaken(db, tenantId, request.body.code),
      });
      return ok({ id: typeId });
    },
  );

  app.put(
    '/api/auth/dict',
    { config: { permission: perm.dictEdit }, schema: { tags: ['dict'], body: dictTypeUpdateBody, response: { 200: idResult } } },
    async (request) => {
      const { tenantId } = principalOf(request);
      const { id, ...fields } = request.body;
      await runCommand(ctx, request, dictDecider, dictStream(tenantId, id), {
        type: 'UpdateDictType',
        typeId: id,
        ...fields,
        codeTaken: await codeTaken(db, tenantId, fields.code, id),
      });
      return ok({ id });
    },
  );

  app.delete(
    '/api/auth/dict',
    { config: { permission: perm.dictDelete }, schema: { tags: ['dict'], querystring: idBody, response: { 200: idResult } } },
    async (request) => {
      const { id } = request.query;
      await runCommand(ctx, request, dictDecider, dictStream(principalOf(request).tenantId, id), { type: 'DeleteDictType', typeId: id });
      return ok({ id });
    },
  );

  app.post(
    '/api/auth/dict/item',
    { config: { permission: perm.dictAdd }, schema: { tags: ['dict'], body: dictItemCreateBody, response: { 200: idResult } } },
    async (request) => {
      const itemId = newAggregateId(contextOf(request));
      await runCommand(ctx, request, dictDecider, dictStream(principalOf(request).tenantId, request.body.typeId), {
        type: 'AddDictItem',
        itemId,
        ...request.body,
      });
      return ok({ id: itemId });
    },
  );

  app.put(
    '/api/auth/dict/item',
    { config: { permission: perm.dictEdit }, schema: { tags: ['dict'], body: dictItemUpdateBody, response: { 200: idResult } } },
    async (request) => {
      await runCommand(ctx, request, dictDecider, dictStream(principalOf(request).tenantId, request.body.typeId), {
        type: 'UpdateDictItem',
        ...request.body,
      });
      return ok({ id: request.body.itemId });
    },
  );

  app.delete(
    '/api/auth/dict/item',
    { config: { permission: perm.dictDelete }, schema: { tags: ['dict'], querystring: dictItemDeleteBody, response: { 200: idResult } } },
    async (request) => {
      const { typeId, itemId } = request.query;
      await runCommand(ctx, request, dictDecider, dictStream(principalOf(request).tenantId, typeId), {
        type: 'RemoveDictItem',
        typeId,
        itemId,
      });
      return ok({ id: itemId });
    },
  );
};
