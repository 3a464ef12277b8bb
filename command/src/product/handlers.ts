import { randomBytes } from 'node:crypto';
import { DomainError, parseThingModel, productCodeScope, type DeviceRoutes, type ProductFields, type ThingFunction } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { loadState, newAggregateId } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { moveClaim, releaseClaims, withClaim, type Claim } from '../shared/claims.ts';
import { productDecider, productStream } from './decide.ts';

/** A product code is unique within its tenant, whatever its case. */
const codeClaim = (tenantId: string, code: string, productId: string): Claim => ({
  scope: productCodeScope(tenantId),
  key: code.toLowerCase(),
  owner: productId,
});

/** The key devices and integrations name a product by: random, never reused. */
const newProductKey = () => randomBytes(12).toString('base64url');

/** The state of a product of the caller's tenant, or NOT_FOUND. */
export async function productOf(ctx: RequestContext, productId: string) {
  const { state, version } = await loadState(ctx.ports.store, productDecider, productStream(callerOf(ctx).tenantId, productId));
  if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND', { field: 'productId' });
  return { ...state, version };
}

async function createProduct(ctx: RequestContext, fields: ProductFields, functions: ThingFunction[], copiedFrom: string | null) {
  const { tenantId } = callerOf(ctx);
  const productId = newAggregateId(commandContextOf(ctx));
  await withClaim(ctx.ports.db, codeClaim(tenantId, fields.code, productId), 'PRODUCT_CODE_TAKEN', () =>
    runCommand(ctx, productDecider, productStream(tenantId, productId), {
      type: 'CreateProduct',
      productId,
      key: newProductKey(),
      fields,
      functions,
      copiedFrom,
    }),
  );
  return { id: productId };
}

type ProductWrites =
  | 'product.create'
  | 'product.update'
  | 'product.delete'
  | 'product.copy'
  | 'product.defineFunction'
  | 'product.removeFunction'
  | 'product.importModel'
  | 'product.publish'
  | 'product.unpublish';

/** Products and their thing models (issue 10 "Products", spec §3 Product and Product function). */
export const productHandlers: Pick<Handlers<DeviceRoutes>, ProductWrites> = {
  'product.create': ({ body }, ctx) => createProduct(ctx, body, [], null),

  async 'product.update'({ body }, ctx) {
    const { tenantId } = callerOf(ctx);
    const { id, ...fields } = body;
    await moveClaim(ctx.ports.db, codeClaim(tenantId, fields.code, id), 'PRODUCT_CODE_TAKEN', () =>
      runCommand(ctx, productDecider, productStream(tenantId, id), { type: 'UpdateProduct', productId: id, fields }),
    );
    return { id };
  },

  async 'product.delete'({ query }, ctx) {
    const { tenantId } = callerOf(ctx);
    await runCommand(ctx, productDecider, productStream(tenantId, query.id), {
      type: 'DeleteProduct',
      productId: query.id,
      hasDevices: await ctx.ports.lookups.productHasDevices(tenantId, query.id),
    });
    await releaseClaims(ctx.ports.db, productCodeScope(tenantId), query.id);
    return { id: query.id };
  },

  async 'product.copy'({ body }, ctx) {
    const source = await productOf(ctx, body.id);
    return createProduct(ctx, { ...source.fields!, name: body.name, code: body.code }, source.functions, body.id);
  },

  async 'product.defineFunction'({ body }, ctx) {
    const { productId, function: fn, replaces } = body;
    await runCommand(ctx, productDecider, productStream(callerOf(ctx).tenantId, productId), {
      type: 'DefineFunction',
      productId,
      function: fn,
      ...(replaces !== undefined ? { replaces } : {}),
    });
    return { id: productId };
  },

  async 'product.removeFunction'({ query }, ctx) {
    await runCommand(ctx, productDecider, productStream(callerOf(ctx).tenantId, query.productId), {
      type: 'RemoveFunction',
      productId: query.productId,
      identifier: query.identifier,
    });
    return { id: query.productId };
  },

  async 'product.importModel'({ body }, ctx) {
    const parsed = parseThingModel(body.model);
    if (!parsed.ok) throw new DomainError('MODEL_INVALID', { faults: parsed.faults });
    await runCommand(ctx, productDecider, productStream(callerOf(ctx).tenantId, body.productId), {
      type: 'ImportThingModel',
      productId: body.productId,
      functions: parsed.model.functions,
    });
    return { id: body.productId, functions: parsed.model.functions.length };
  },

  async 'product.publish'({ body }, ctx) {
    const result = await runCommand(ctx, productDecider, productStream(callerOf(ctx).tenantId, body.id), {
      type: 'PublishProduct',
      productId: body.id,
    });
    return { id: body.id, version: result.state.versions.length };
  },

  async 'product.unpublish'({ body }, ctx) {
    await runCommand(ctx, productDecider, productStream(callerOf(ctx).tenantId, body.id), { type: 'UnpublishProduct', productId: body.id });
    return { id: body.id };
  },
};
