import type { RuleChainDefinition, RuleChainEvent } from '@iot/contracts';

export type { RuleChainEvent };

/** A rule chain: every version saved, and which of them runs. */
export interface RuleChainState {
  exists: boolean;
  deleted: boolean;
  root: boolean;
  latest: number;
  running: number;
  versions: Readonly<Record<number, RuleChainDefinition>>;
  /** Each node's debug traces: on until this time (ISO), or off (null). */
  debug: Readonly<Record<string, string | null>>;
}

export const initialState: RuleChainState = {
  exists: false,
  deleted: false,
  root: false,
  latest: 0,
  running: 0,
  versions: {},
  debug: {},
};

export function evolve(state: RuleChainState, event: RuleChainEvent): RuleChainState {
  switch (event.type) {
    case 'RuleChainCreated':
      return { ...state, exists: true, root: event.data.root, latest: 1, running: 1, versions: { 1: event.data.chain } };
    case 'RuleChainSaved': {
      const { version, chain, run } = event.data;
      return { ...state, latest: version, running: run ? version : state.running, versions: { ...state.versions, [version]: chain } };
    }
    case 'RuleChainVersionSwitched':
      return { ...state, running: event.data.version };
    case 'RuleChainDeleted':
      return { ...state, deleted: true };
    case 'RuleNodeDebugSet':
      return { ...state, debug: { ...state.debug, [event.data.nodeId]: event.data.until } };
    default:
      return state;
  }
}

export const ruleChainStream = (tenantId: string, chainId: string) => `ruleChain-${tenantId}.${chainId}`;
