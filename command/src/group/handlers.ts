import { DomainError, type GroupRoutes } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { isRootUser } from '@iot/contracts/http/principal.ts';
import { newAggregateId } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { groupDecider, groupStream } from './decide.ts';
import { assertOwnGroup } from './own.ts';

/** A parent must be the tenant's own group, and a group cannot move under its own subtree. */
async function assertParent(ctx: RequestContext, tenantId: string, parentId: string | null, groupId?: string): Promise<void> {
  if (!parentId) return;
  const { lookups } = ctx.ports;
  await assertOwnGroup(lookups, tenantId, parentId, 'parentId');
  if (groupId && (await lookups.groupAncestry(tenantId, parentId)).includes(groupId))
    throw new DomainError('VALIDATION', { fields: [{ field: 'body.parentId', message: 'a group cannot move under itself' }] });
}

/** The group tree of a tenant (spec §3 Group, §5 root group rule). */
export const groupHandlers: Pick<Handlers<GroupRoutes>, 'group.create' | 'group.update' | 'group.delete'> = {
  async 'group.create'({ body }, ctx) {
    const caller = callerOf(ctx);
    const { name, type, location, sort, parentId } = body;
    await assertParent(ctx, caller.tenantId, parentId);
    const groupId = newAggregateId(commandContextOf(ctx));
    await runCommand(ctx, groupDecider, groupStream(caller.tenantId, groupId), {
      type: 'CreateGroup',
      groupId,
      byTenantAdmin: isRootUser(caller),
      group: { name, type, location, sort, parentId },
    });
    return { id: groupId };
  },

  async 'group.update'({ body }, ctx) {
    const caller = callerOf(ctx);
    const { id, name, type, location, sort, parentId } = body;
    await assertParent(ctx, caller.tenantId, parentId, id);
    await runCommand(ctx, groupDecider, groupStream(caller.tenantId, id), {
      type: 'UpdateGroup',
      groupId: id,
      byTenantAdmin: isRootUser(caller),
      group: { name, type, location, sort, parentId },
    });
    return { id };
  },

  async 'group.delete'({ query }, ctx) {
    const { lookups } = ctx.ports;
    const caller = callerOf(ctx);
    const { id } = query;
    // A group still holding users or devices is in use: deleting it would leave them in no group they can be found by.
    const [hasChildren, hasUsers] = await Promise.all([
      lookups.groupHasChildren(caller.tenantId, id),
      lookups.groupHasMembers(caller.tenantId, id),
    ]);
    await runCommand(ctx, groupDecider, groupStream(caller.tenantId, id), {
      type: 'DeleteGroup',
      groupId: id,
      byTenantAdmin: isRootUser(caller),
      hasChildren,
      hasUsers,
    });
    return { id };
  },
};
