import type { TFunction } from 'i18next';
import { defaultRootChain, ROOT_CHAIN_ID } from '@iot/contracts';

/**
 * A chain's name as the user reads it: the root chain every tenant is given under its built-in English name is named
 * in the user's language; a name an operator gave is shown as given.
 */
export function chainName(t: TFunction, chain: { id: string; name: string }): string {
  return chain.id === ROOT_CHAIN_ID && chain.name === defaultRootChain.name ? t('rule.rootChainName') : chain.name;
}
