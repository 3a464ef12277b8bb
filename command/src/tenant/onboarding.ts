import type { DomainEvent, TenantEvent } from '@iot/contracts';
import type { Dispatch, DispatchMetadata } from '@iot/contracts/ports/dispatch.ts';
import type { StoredEventOf } from '@iot/contracts/ports/event-store.ts';

/** A process manager: reacts to events of its kind by dispatching the next idempotent command. */
export interface Workflow<E extends DomainEvent> {
  name: string;
  handles: readonly E['type'][];
  /** `afterStep` is told each step's name once it is done (metrics, and the crash tests' kill switch). */
  react(event: StoredEventOf<E>, io: { dispatch: Dispatch; afterStep(step: string): Promise<void> | void }): Promise<void>;
}

/** The steps of onboarding, in order: a crash between any two resumes at the first not yet applied. */
export const onboardingSteps = ['adminUser', 'credential', 'roles', 'notified', 'onboarded'] as const;

/**
 * Approving a tenant (spec §1): its administrator (the registration's name and password), its built-in
 * roles with their menus, the administrator's role, then the applicant is told. Every step is a command
 * with an idempotency key derived from the approval, so a step run twice applies once.
 */
export const tenantOnboarding: Workflow<TenantEvent> = {
  name: 'workflow-tenant-onboarding',
  handles: ['TenantApproved'],
  async react(event, { dispatch, afterStep }) {
    if (event.type !== 'TenantApproved') return;
    const { tenantId, adminUserId } = event.data;
    const metadata = (step: string): DispatchMetadata => ({
      tenantId,
      actor: event.metadata.actor,
      correlationId: event.metadata.correlationId,
      causationId: event.id,
      idempotencyKey: `onboarding:${step}`,
    });
    await dispatch({ type: 'CreateTenantAdmin', tenantId, adminUserId }, metadata('adminUser'));
    await afterStep('adminUser');
    await dispatch({ type: 'ActivateTenantAdminCredential', tenantId, adminUserId }, metadata('credential'));
    await afterStep('credential');
    await dispatch({ type: 'ProvisionTenant', tenantId, adminUserId }, metadata('roles'));
    await afterStep('roles');
    // At least once: a crash right after the message and before the next step sends it again.
    await dispatch({ type: 'NotifyTenantAudit', tenantId, approved: true, reason: null }, metadata('notified'));
    await afterStep('notified');
    await dispatch({ type: 'MarkTenantOnboarded', tenantId, adminUserId }, metadata('onboarded'));
    await afterStep('onboarded');
  },
};
