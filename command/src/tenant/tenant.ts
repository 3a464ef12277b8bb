import type { RegisterMethod, TenantStatus } from '@iot/contracts';
import type { DomainEvent } from '../decider.ts';

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
  | DomainEvent<'TenantStarted', { tenantId: string }>;

export type TenantEventType = TenantEvent['type'];

export interface TenantState {
  status: TenantStatus | 'none';
  name: string | null;
  method: RegisterMethod | null;
  phone: string | null;
  email: string | null;
}

export const initialState: TenantState = { status: 'none', name: null, method: null, phone: null, email: null };

export function evolve(state: TenantState, event: TenantEvent): TenantState {
  switch (event.type) {
    case 'TenantRegistered':
      return { status: 'underReview', name: event.data.name, method: event.data.method, phone: event.data.phone, email: event.data.email };
    case 'TenantApproved':
      return { ...state, status: 'approved' };
    case 'TenantRejected':
      return { ...state, status: 'rejected' };
    case 'TenantStopped':
      return { ...state, status: 'stopped' };
    case 'TenantStarted':
      return { ...state, status: 'approved' };
    default:
      return state;
  }
}
