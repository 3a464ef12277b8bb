import { describe, expect, it } from 'vitest';
import { defaultRootChain, ruleChainDefinition, type RuleChainDefinition, type RuleChainEvent } from '@iot/contracts';
import { codeOf, scenario } from '../decider-testing.ts';
import { ruleChainDecider } from './decide.ts';

const { given } = scenario(ruleChainDecider);
const v1 = ruleChainDefinition.parse({
  name: 'Hot',
  firstNodeId: 'f',
  nodes: [{ id: 'f', name: 'Hot?', kind: 'filter', config: { expression: 'msg.temp > 30.0' } }],
});
const v2: RuleChainDefinition = { ...v1, name: 'Hotter' };
const created: RuleChainEvent = { type: 'RuleChainCreated', data: { chainId: 'c1', root: false, version: 1, chain: v1 } };
const saved2: RuleChainEvent = { type: 'RuleChainSaved', data: { chainId: 'c1', version: 2, chain: v2, restoredFrom: null, run: true } };
const rootCreated: RuleChainEvent = {
  type: 'RuleChainCreated',
  data: { chainId: 'root', root: true, version: 1, chain: defaultRootChain },
};

describe('rule chain decider', () => {
  it('creates a chain as version 1, running; the root chain once however often it is asked for', () => {
    expect(given([]).when({ type: 'CreateChain', chainId: 'c1', root: false, chain: v1 })).toEqual([created]);
    expect(given([rootCreated]).when({ type: 'CreateChain', chainId: 'root', root: true, chain: defaultRootChain })).toEqual([]);
    expect(codeOf(() => given([created]).when({ type: 'CreateChain', chainId: 'c1', root: false, chain: v1 }))).toBe('CONFLICT');
  });

  it('saves each change as a new version, run at once or kept aside; an unchanged save records nothing', () => {
    expect(given([created]).when({ type: 'SaveChain', chainId: 'c1', chain: v2, run: true })).toEqual([saved2]);
    expect(given([created]).when({ type: 'SaveChain', chainId: 'c1', chain: v2, run: false })).toEqual([
      { type: 'RuleChainSaved', data: { chainId: 'c1', version: 2, chain: v2, restoredFrom: null, run: false } },
    ]);
    expect(given([created]).when({ type: 'SaveChain', chainId: 'c1', chain: v1, run: true })).toEqual([]);
  });

  it('refuses a save over a version later than the one the editor started from', () => {
    expect(codeOf(() => given([created, saved2]).when({ type: 'SaveChain', chainId: 'c1', chain: v1, baseVersion: 1, run: true }))).toBe(
      'CONFLICT',
    );
  });

  it('restores an old version as the newest one, and switches the running version without a new one', () => {
    expect(given([created, saved2]).when({ type: 'RestoreVersion', chainId: 'c1', version: 1 })).toEqual([
      { type: 'RuleChainSaved', data: { chainId: 'c1', version: 3, chain: v1, restoredFrom: 1, run: true } },
    ]);
    expect(given([created, saved2]).when({ type: 'SwitchVersion', chainId: 'c1', version: 1 })).toEqual([
      { type: 'RuleChainVersionSwitched', data: { chainId: 'c1', version: 1, from: 2 } },
    ]);
    expect(given([created, saved2]).when({ type: 'SwitchVersion', chainId: 'c1', version: 2 })).toEqual([]);
    expect(codeOf(() => given([created]).when({ type: 'SwitchVersion', chainId: 'c1', version: 7 }))).toBe('NOT_FOUND');
  });

  it('deletes a chain but never the root chain; a deleted chain is gone', () => {
    const deleted: RuleChainEvent = { type: 'RuleChainDeleted', data: { chainId: 'c1' } };
    expect(given([created]).when({ type: 'DeleteChain', chainId: 'c1' })).toEqual([deleted]);
    expect(codeOf(() => given([rootCreated]).when({ type: 'DeleteChain', chainId: 'root' }))).toBe('RULE_CHAIN_ROOT');
    expect(codeOf(() => given([created, deleted]).when({ type: 'SaveChain', chainId: 'c1', chain: v2, run: true }))).toBe('NOT_FOUND');
  });

  it("switches a node's debug traces on and off; off when already off records nothing; an unknown node is NOT_FOUND", () => {
    const until = '2026-05-03T15:00:00.000Z';
    const on: RuleChainEvent = { type: 'RuleNodeDebugSet', data: { chainId: 'c1', nodeId: 'f', until, sampleRate: 0.5 } };
    expect(given([created]).when({ type: 'SetNodeDebug', chainId: 'c1', nodeId: 'f', until, sampleRate: 0.5 })).toEqual([on]);
    expect(given([created]).when({ type: 'SetNodeDebug', chainId: 'c1', nodeId: 'f', until: null, sampleRate: 1 })).toEqual([]);
    expect(given([created, on]).when({ type: 'SetNodeDebug', chainId: 'c1', nodeId: 'f', until: null, sampleRate: 1 })).toEqual([
      { type: 'RuleNodeDebugSet', data: { chainId: 'c1', nodeId: 'f', until: null, sampleRate: 1 } },
    ]);
    expect(codeOf(() => given([created]).when({ type: 'SetNodeDebug', chainId: 'c1', nodeId: 'x', until, sampleRate: 1 }))).toBe(
      'NOT_FOUND',
    );
  });
});
