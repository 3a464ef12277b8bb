import type { DomainError } from '@iot/contracts';
import type { Decider, DomainEvent } from './decider.ts';

/** Given events, when a command, then the events it decides (STYLE.md): no database, only the decider. */
export function scenario<C, E extends DomainEvent, S>(decider: Decider<C, E, S>) {
  return {
    given: (events: E[]) => ({
      when: (command: C) => decider.decide(command, events.reduce(decider.evolve, decider.initialState)),
    }),
  };
}

/** The code of the DomainError `fn` throws, or 'no error'. */
export function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return (error as DomainError).code;
  }
  return 'no error';
}
