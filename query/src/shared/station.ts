import { DomainError } from '@iot/contracts';
import { callerOf, type RequestContext } from '@iot/contracts/http/handler.ts';
import { groupSubtree } from '@iot/projections/group/read.ts';

/**
 * Refuses (NOT_FOUND) a record outside the caller's current station (spec §6 `stationId`): one whose group
 * is not in the station's subtree, or that has no group, is not there for this request.
 */
export async function assertInStation(ctx: RequestContext, groupId: string | null): Promise<void> {
  const caller = callerOf(ctx);
  if (!caller.stationId) return;
  if (!groupId || !(await groupSubtree(ctx.ports.db, caller.tenantId, caller.stationId)).includes(groupId))
    throw new DomainError('NOT_FOUND');
}
