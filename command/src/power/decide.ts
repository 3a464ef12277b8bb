import { DomainError, scheduleProblem, type PriceSchedule, type PriceScheduleEvent } from '@iot/contracts';
import { sameValue, unreachable, type Decider } from '../decider.ts';

// A price schedule (electricity tariff): one aggregate per station, and one for the tenant's default.

export interface PriceScheduleState {
  schedule: PriceSchedule | null;
}
export type PriceScheduleCommand =
  | { type: 'AddPriceSchedule'; stationId: string | null; schedule: PriceSchedule }
  | { type: 'EditPriceSchedule'; stationId: string | null; schedule: PriceSchedule }
  | { type: 'RemovePriceSchedule'; stationId: string | null };

const problems = { overlap: 'PRICE_PERIODS_OVERLAP', gap: 'PRICE_PERIODS_GAP', price: 'PRICE_MISSING' } as const;

function checked(schedule: PriceSchedule): PriceSchedule {
  const problem = scheduleProblem(schedule);
  if (problem) throw new DomainError(problems[problem], { field: problem === 'price' ? 'prices' : 'periods' });
  return schedule;
}

export const priceScheduleDecider: Decider<PriceScheduleCommand, PriceScheduleEvent, PriceScheduleState> = {
  initialState: { schedule: null },
  evolve(_state, event) {
    switch (event.type) {
      case 'PriceScheduleSet': {
        const { stationId: _s, ...schedule } = event.data;
        return { schedule };
      }
      case 'PriceScheduleRemoved':
        return { schedule: null };
      default:
        return unreachable(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'AddPriceSchedule':
        if (state.schedule) throw new DomainError('PRICE_SCHEDULE_EXISTS', { field: 'stationId' });
        return [{ type: 'PriceScheduleSet', data: { stationId: command.stationId, ...checked(command.schedule) } }];
      case 'EditPriceSchedule':
        if (!state.schedule) throw new DomainError('NOT_FOUND', { field: 'stationId' });
        if (sameValue(state.schedule, checked(command.schedule))) return [];
        return [{ type: 'PriceScheduleSet', data: { stationId: command.stationId, ...command.schedule } }];
      case 'RemovePriceSchedule':
        if (!state.schedule) throw new DomainError('NOT_FOUND', { field: 'stationId' });
        return [{ type: 'PriceScheduleRemoved', data: { stationId: command.stationId } }];
      default:
        return unreachable(command);
    }
  },
};
/** A station's schedule, or the tenant's default (an aggregate of its own, so that no group id can name it). */
export const priceScheduleStream = (tenantId: string, stationId: string | null) =>
  stationId === null ? `priceDefault-${tenantId}.default` : `priceSchedule-${tenantId}.${stationId}`;
