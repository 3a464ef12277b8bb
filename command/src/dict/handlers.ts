import type { DictRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { newAggregateId } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { moveClaim, releaseClaims, withClaim } from '../shared/claims.ts';
import { dictCodeClaim, dictCodeScope } from './codes.ts';
import { dictDecider, dictStream } from './decide.ts';

/** Dictionary types and their items, per tenant. */
export const dictHandlers: Pick<
  Handlers<DictRoutes>,
  'dict.create' | 'dict.update' | 'dict.delete' | 'dict.addItem' | 'dict.updateItem' | 'dict.removeItem'
> = {
  async 'dict.create'({ body }, ctx) {
    const { db } = ctx.ports;
    const { tenantId } = callerOf(ctx);
    const typeId = newAggregateId(commandContextOf(ctx));
    await withClaim(db, dictCodeClaim(tenantId, body.code, typeId), 'DICT_CODE_TAKEN', async () =>
      runCommand(ctx, dictDecider, dictStream(tenantId, typeId), {
        type: 'CreateDictType',
        typeId,
        ...body,
        codeTaken: await ctx.ports.lookups.dictCodeTaken(tenantId, body.code, typeId),
      }),
    );
    return { id: typeId };
  },

  async 'dict.update'({ body }, ctx) {
    const { db } = ctx.ports;
    const { tenantId } = callerOf(ctx);
    const { id, ...fields } = body;
    await moveClaim(db, dictCodeClaim(tenantId, fields.code, id), 'DICT_CODE_TAKEN', async () =>
      runCommand(ctx, dictDecider, dictStream(tenantId, id), {
        type: 'UpdateDictType',
        typeId: id,
        ...fields,
        codeTaken: await ctx.ports.lookups.dictCodeTaken(tenantId, fields.code, id),
      }),
    );
    return { id };
  },

  async 'dict.delete'({ query }, ctx) {
    const { tenantId } = callerOf(ctx);
    const { id } = query;
    await runCommand(ctx, dictDecider, dictStream(tenantId, id), { type: 'DeleteDictType', typeId: id });
    await releaseClaims(ctx.ports.db, dictCodeScope(tenantId), id);
    return { id };
  },

  async 'dict.addItem'({ body }, ctx) {
    const itemId = newAggregateId(commandContextOf(ctx));
    await runCommand(ctx, dictDecider, dictStream(callerOf(ctx).tenantId, body.typeId), { type: 'AddDictItem', itemId, ...body });
    return { id: itemId };
  },

  async 'dict.updateItem'({ body }, ctx) {
    await runCommand(ctx, dictDecider, dictStream(callerOf(ctx).tenantId, body.typeId), { type: 'UpdateDictItem', ...body });
    return { id: body.itemId };
  },

  async 'dict.removeItem'({ query }, ctx) {
    const { typeId, itemId } = query;
    await runCommand(ctx, dictDecider, dictStream(callerOf(ctx).tenantId, typeId), { type: 'RemoveDictItem', typeId, itemId });
    return { id: itemId };
  },
};
