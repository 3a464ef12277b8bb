import { DomainError, isSiteGroupType, type FieldRoutes } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { loadState } from '../handler.ts';
import { runCommand } from '../request.ts';
import { fieldDefinitionsDecider, fieldDefinitionsStream, fieldSiteDecider, fieldSiteStream } from './decide.ts';

/** A group of the caller's tenant whose type makes it a site. */
export async function checkSite(ctx: RequestContext, groupId: string): Promise<void> {
  const type = await ctx.ports.lookups.groupTypeOf(callerOf(ctx).tenantId, groupId);
  if (type === undefined) throw new DomainError('NOT_FOUND', { field: 'groupId' });
  if (!isSiteGroupType(type)) throw new DomainError('NOT_A_SITE', { field: 'groupId' });
}

/** Field configuration (issue 20): a site's parameters, and the tenant's custom field definitions. */
export const fieldHandlers: Pick<Handlers<FieldRoutes>, 'fieldConfig.save' | 'fieldConfig.define' | 'fieldConfig.removeField'> = {
  async 'fieldConfig.save'({ body }, ctx) {
    const { groupId, ...params } = body;
    await checkSite(ctx, groupId);
    const tenantId = callerOf(ctx).tenantId;
    const { state } = await loadState(ctx.ports.store, fieldDefinitionsDecider, fieldDefinitionsStream(tenantId));
    await runCommand(ctx, fieldSiteDecider, fieldSiteStream(tenantId, groupId), {
      type: 'ConfigureSite',
      groupId,
      params,
      definitions: state.fields,
    });
    return { groupId };
  },

  async 'fieldConfig.define'({ body }, ctx) {
    await runCommand(ctx, fieldDefinitionsDecider, fieldDefinitionsStream(callerOf(ctx).tenantId), {
      type: 'DefineField',
      definition: body,
    });
    return { key: body.key };
  },

  async 'fieldConfig.removeField'({ query }, ctx) {
    await runCommand(ctx, fieldDefinitionsDecider, fieldDefinitionsStream(callerOf(ctx).tenantId), { type: 'RemoveField', key: query.key });
    return { key: query.key };
  },
};
