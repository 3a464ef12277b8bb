import { DomainError, scheduleProblem, type PriceSchedule, type PriceScheduleEvent } from '@iot/contracts';
import { sameValue, type Decider } from '../decider.ts';

// A tenant's electricity tariff: one aggregate per tenant, its schedule set whole.

export interface PriceScheduleState {
  schedule: PriceSchedule | null;
}
export type PriceScheduleCommand = { type: 'SetPriceSchedule'; schedule: PriceSchedule };

const problems = { overlap: 'PRICE_PERIODS_OVERLAP', gap: 'PRICE_PERIODS_GAP', price: 'PRICE_MISSING' } as const;

export const priceScheduleDecider: Decider<PriceScheduleCommand, PriceScheduleEvent, PriceScheduleState> = {
  initialState: { schedule: null },
  evolve: (_state, event) => ({ schedule: event.data }),
  decide(command, state) {
    const problem = scheduleProblem(command.schedule);
    if (problem) throw new DomainError(problems[problem], { field: 'periods' });
    if (state.schedule && sameValue(state.schedule, command.schedule)) return [];
    return [{ type: 'PriceScheduleSet', data: command.schedule }];
  },
};
export const priceScheduleStream = (tenantId: string) => `priceSchedule-${tenantId}.price`;
