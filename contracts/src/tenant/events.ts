import type { DomainEvent } from '../event.ts';
import type { RegisterMethod } from './tenant.ts';

/** What can happen to a tenant: registered, audited, stopped and started, onboarded by its workflow. */
export type TenantEvent =
  | DomainEvent<
      'TenantRegistered',
      {
        tenantId: string;
        name: string;
        contactName: string;
        company: string;
        method: RegisterMethod;
        phone: string | null;
        email: string | null;
      }
    >
  | DomainEvent<'TenantApproved', { tenantId: string; adminUserId: string }>
  | DomainEvent<'TenantRejected', { tenantId: string; reason: string | null }>
  | DomainEvent<'TenantStopped', { tenantId: string }>
  | DomainEvent<'TenantStarted', { tenantId: string }>
  /** The onboarding workflow's last step: administrator, built-in roles and menus are in place. */
  | DomainEvent<'TenantOnboarded', { tenantId: string; adminUserId: string }>;

export type TenantEventType = TenantEvent['type'];
