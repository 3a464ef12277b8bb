import type { DomainEvent } from '../event.ts';
import type { RuleChainDefinition } from './model.ts';

/**
 * A rule chain: stream `ruleChain-<tenant>.<id>`. Every save is a new version with the whole chain in it, so
 * that any version can be listed, restored or run again; which version runs is an event of its own.
 */
export type RuleChainEvent =
  | DomainEvent<'RuleChainCreated', { chainId: string; root: boolean; version: 1; chain: RuleChainDefinition }>
  | DomainEvent<
      'RuleChainSaved',
      { chainId: string; version: number; chain: RuleChainDefinition; restoredFrom: number | null; run: boolean }
    >
  | DomainEvent<'RuleChainVersionSwitched', { chainId: string; version: number; from: number }>
  | DomainEvent<'RuleChainDeleted', { chainId: string }>
  /** A node's debug traces switched on until a time (null: off), for a share of its messages. */
  | DomainEvent<'RuleNodeDebugSet', { chainId: string; nodeId: string; until: string | null; sampleRate: number }>;
