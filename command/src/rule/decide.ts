import { DomainError, type RuleChainDefinition } from '@iot/contracts';
import { sameValue, unreachable, type Decider } from '../decider.ts';
import { evolve, initialState, type RuleChainEvent, type RuleChainState } from './chain.ts';

export type RuleChainCommand =
  | { type: 'CreateChain'; chainId: string; root: boolean; chain: RuleChainDefinition }
  | { type: 'SaveChain'; chainId: string; chain: RuleChainDefinition; baseVersion?: number; run: boolean }
  | { type: 'RestoreVersion'; chainId: string; version: number }
  | { type: 'SwitchVersion'; chainId: string; version: number }
  | { type: 'DeleteChain'; chainId: string }
  /** `until` null switches the node's traces off. */
  | { type: 'SetNodeDebug'; chainId: string; nodeId: string; until: string | null; sampleRate: number };

const live = (state: RuleChainState) => {
  if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND');
  return state;
};
const versionOf = (state: RuleChainState, version: number) => {
  const chain = state.versions[version];
  if (!chain) throw new DomainError('NOT_FOUND', { field: 'version' });
  return chain;
};

/** A save that changes nothing records nothing; making the root chain twice makes it once. */
export function decide(command: RuleChainCommand, state: RuleChainState): RuleChainEvent[] {
  const { chainId } = command;
  switch (command.type) {
    case 'CreateChain':
      if (state.exists) {
        if (command.root && state.root) return [];
        throw new DomainError('CONFLICT');
      }
      return [{ type: 'RuleChainCreated', data: { chainId, root: command.root, version: 1, chain: command.chain } }];
    case 'SaveChain': {
      const { latest, running, versions } = live(state);
      if (command.baseVersion !== undefined && command.baseVersion !== latest) throw new DomainError('CONFLICT');
      if (sameValue(command.chain, versions[latest])) {
        return command.run && running !== latest
          ? [{ type: 'RuleChainVersionSwitched', data: { chainId, version: latest, from: running } }]
          : [];
      }
      return [
        { type: 'RuleChainSaved', data: { chainId, version: latest + 1, chain: command.chain, restoredFrom: null, run: command.run } },
      ];
    }
    case 'RestoreVersion': {
      const { latest, running } = live(state);
      const chain = versionOf(state, command.version);
      if (command.version === latest)
        return running === latest ? [] : [{ type: 'RuleChainVersionSwitched', data: { chainId, version: latest, from: running } }];
      return [{ type: 'RuleChainSaved', data: { chainId, version: latest + 1, chain, restoredFrom: command.version, run: true } }];
    }
    case 'SwitchVersion': {
      const { running } = live(state);
      versionOf(state, command.version);
      if (running === command.version) return [];
      return [{ type: 'RuleChainVersionSwitched', data: { chainId, version: command.version, from: running } }];
    }
    case 'DeleteChain':
      if (live(state).root) throw new DomainError('RULE_CHAIN_ROOT');
      return [{ type: 'RuleChainDeleted', data: { chainId } }];
    case 'SetNodeDebug': {
      const { latest, running, versions, debug } = live(state);
      const { nodeId, until, sampleRate } = command;
      const known = [versions[latest], versions[running]].some((chain) => chain?.nodes.some((n) => n.id === nodeId));
      if (!known) throw new DomainError('NOT_FOUND', { field: 'nodeId' });
      if (until === null && !debug[nodeId]) return [];
      return [{ type: 'RuleNodeDebugSet', data: { chainId, nodeId, until, sampleRate } }];
    }
    default:
      return unreachable(command);
  }
}

export const ruleChainDecider: Decider<RuleChainCommand, RuleChainEvent, RuleChainState> = { initialState, evolve, decide };
