import type { RegisterMethod, TenantEvent, TenantStatus } from '@iot/contracts';

export type { TenantEvent };

export interface TenantState {
  status: TenantStatus | 'none';
  name: string | null;
  method: RegisterMethod | null;
  phone: string | null;
  email: string | null;
  /** The onboarding workflow finished: administrator, roles and menus exist. */
  onboarded: boolean;
}

export const initialState: TenantState = { status: 'none', name: null, method: null, phone: null, email: null, onboarded: false };

export function evolve(state: TenantState, event: TenantEvent): TenantState {
  switch (event.type) {
    case 'TenantRegistered':
      return {
        status: 'underReview',
        name: event.data.name,
        method: event.data.method,
        phone: event.data.phone,
        email: event.data.email,
        onboarded: false,
      };
    case 'TenantApproved':
      return { ...state, status: 'approved' };
    case 'TenantRejected':
      return { ...state, status: 'rejected' };
    case 'TenantStopped':
      return { ...state, status: 'stopped' };
    case 'TenantStarted':
      return { ...state, status: 'approved' };
    case 'TenantOnboarded':
      return { ...state, onboarded: true };
    default:
      return state;
  }
}
