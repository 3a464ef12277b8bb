import type { TenantEvent } from '@iot/contracts';
import type { Workflow } from '../tenant/onboarding.ts';

/**
 * Every approved tenant gets its root chain (a Warehousing node: it stores what arrives, as before chains existed).
 * Run from the start of the log, it gives one to the tenants approved before rule chains, too.
 */
export const rootChainWorkflow: Workflow<TenantEvent> = {
  name: 'workflow-rule-root',
  handles: ['TenantApproved'],
  async react(event, { dispatch, afterStep }) {
    if (event.type !== 'TenantApproved') return;
    const { tenantId } = event.data;
    await dispatch(
      { type: 'CreateRootChain', tenantId },
      {
        tenantId,
        actor: event.metadata.actor,
        correlationId: event.metadata.correlationId,
        causationId: event.id,
        idempotencyKey: 'rule:root',
      },
    );
    await afterStep('rootChain');
  },
};
