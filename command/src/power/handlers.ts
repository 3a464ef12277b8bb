import { DomainError, isStationGroupType, type PowerRoutes, type PriceScheduleBody } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { runCommand } from '../request.ts';
import { priceScheduleDecider, priceScheduleStream } from './decide.ts';

/**
 * Whom a schedule may be changed by: a station of the tenant inside the caller's current station (spec §6 stationId),
 * or the tenant's default, which only a caller not narrowed to a station may change.
 */
async function checkStation(ctx: RequestContext, stationId: string | null): Promise<void> {
  const { tenantId, stationId: scope } = callerOf(ctx);
  if (stationId === null) {
    if (scope) throw new DomainError('FORBIDDEN', { field: 'stationId' });
    return;
  }
  const type = await ctx.ports.lookups.groupTypeOf(tenantId, stationId);
  if (type === undefined) throw new DomainError('NOT_FOUND', { field: 'stationId' });
  if (scope && !(await ctx.ports.lookups.groupSubtree(tenantId, scope)).includes(stationId))
    throw new DomainError('NOT_FOUND', { field: 'stationId' });
  if (!isStationGroupType(type)) throw new DomainError('NOT_A_STATION', { field: 'stationId' });
}

const scheduleOf = ({ stationId: _s, ...schedule }: PriceScheduleBody) => schedule;

/** Price schedules (issue 20): a station's own, or the tenant's default. */
export const powerHandlers: Pick<Handlers<PowerRoutes>, 'power.priceAdd' | 'power.priceEdit' | 'power.priceDelete'> = {
  async 'power.priceAdd'({ body }, ctx) {
    await checkStation(ctx, body.stationId);
    await runCommand(ctx, priceScheduleDecider, priceScheduleStream(callerOf(ctx).tenantId, body.stationId), {
      type: 'AddPriceSchedule',
      stationId: body.stationId,
      schedule: scheduleOf(body),
    });
    return { stationId: body.stationId };
  },

  async 'power.priceEdit'({ body }, ctx) {
    await checkStation(ctx, body.stationId);
    await runCommand(ctx, priceScheduleDecider, priceScheduleStream(callerOf(ctx).tenantId, body.stationId), {
      type: 'EditPriceSchedule',
      stationId: body.stationId,
      schedule: scheduleOf(body),
    });
    return { stationId: body.stationId };
  },

  async 'power.priceDelete'({ query }, ctx) {
    const stationId = query.stationId ?? null;
    await checkStation(ctx, stationId);
    await runCommand(ctx, priceScheduleDecider, priceScheduleStream(callerOf(ctx).tenantId, stationId), {
      type: 'RemovePriceSchedule',
      stationId,
    });
    return { stationId };
  },
};
