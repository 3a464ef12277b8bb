import { DomainError, isStationGroupType, type PowerRoutes, type PriceScheduleBody } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { runCommand } from '../request.ts';
import { priceScheduleDecider, priceScheduleStream } from './decide.ts';

/**
 * Whom a schedule may be changed by: a station of the tenant inside the caller's current station (spec §6 stationId),
 * or the tenant's default, which only a caller not narrowed to a station may change.
 */
async function checkStation(ctx: RequestContext, groupId: string | null): Promise<void> {
  const { tenantId, stationId: scope } = callerOf(ctx);
  if (groupId === null) {
    if (scope) throw new DomainError('FORBIDDEN', { field: 'groupId' });
    return;
  }
  const type = await ctx.ports.lookups.groupTypeOf(tenantId, groupId);
  if (type === undefined) throw new DomainError('NOT_FOUND', { field: 'groupId' });
  if (scope && !(await ctx.ports.lookups.groupSubtree(tenantId, scope)).includes(groupId))
    throw new DomainError('NOT_FOUND', { field: 'groupId' });
  if (!isStationGroupType(type)) throw new DomainError('NOT_A_STATION', { field: 'groupId' });
}

/** Sets a station's schedule (the tenant default for no station): adding and editing differ only in what they refuse. */
async function putSchedule(
  ctx: RequestContext,
  type: 'AddPriceSchedule' | 'EditPriceSchedule',
  { groupId, ...schedule }: PriceScheduleBody,
) {
  await checkStation(ctx, groupId);
  await runCommand(ctx, priceScheduleDecider, priceScheduleStream(callerOf(ctx).tenantId, groupId), { type, stationId: groupId, schedule });
  return { groupId };
}

/** Price schedules (issue 20): a station's own, or the tenant's default. */
export const powerHandlers: Pick<Handlers<PowerRoutes>, 'power.priceAdd' | 'power.priceEdit' | 'power.priceDelete'> = {
  'power.priceAdd': ({ body }, ctx) => putSchedule(ctx, 'AddPriceSchedule', body),
  'power.priceEdit': ({ body }, ctx) => putSchedule(ctx, 'EditPriceSchedule', body),

  async 'power.priceDelete'({ query }, ctx) {
    const groupId = query.groupId ?? null;
    await checkStation(ctx, groupId);
    await runCommand(ctx, priceScheduleDecider, priceScheduleStream(callerOf(ctx).tenantId, groupId), {
      type: 'RemovePriceSchedule',
      stationId: groupId,
    });
    return { groupId };
  },
};
