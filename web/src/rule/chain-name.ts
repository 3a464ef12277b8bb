import type { TFunction } from 'i18next';
import { defaultRootChain, ROOT_CHAIN_ID } from '@iot/contracts';

/**
 * A chain's name as the user reads it: the root chain every tenant is given under its built-in English name is named
 * in the user's language; a name an operator gave is shown as given.
 */
export function chainName(t: TFunction, chain: { id: string; name: string }): string {
  return chain.id === ROOT_CHAIN_ID && chain.name === defaultRootChain.name ? t('rule.rootChainName') : chain.name;
}

/** The names the platform gives nodes it makes (the root chain's Warehousing): shown in the user's language. */
const builtinNodeNames = new Map(defaultRootChain.nodes.map((n) => [n.name, n.kind]));

/** A node's name as the user reads it: a built-in node under its built-in name is named by its kind, translated. */
export function nodeName(t: TFunction, node: { name: string; kind: string }): string {
  return builtinNodeNames.get(node.name) === node.kind ? t(`rule.kinds.${node.kind}`) : node.name;
}
