import type { DomainEvent } from '@iot/contracts';

export type { DomainEvent };

/** An aggregate as pure functions (STYLE.md): what it is, what can happen to it, what it decides. */
export interface Decider<C, E extends DomainEvent, S> {
  initialState: S;
  evolve(state: S, event: E): S;
  decide(command: C, state: S): E[];
}

/** Exhaustiveness check for `decide` switches: a new command type that is not handled fails to compile. */
export const unreachable = (value: never): never => {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
};

/** Deciders compare fields as the read side's histories do (contracts/src/same-value.ts). */
export { sameValue } from '@iot/contracts/same-value.ts';
