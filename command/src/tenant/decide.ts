import { DomainError, type RegisterMethod } from '@iot/contracts';
import { unreachable, type Decider } from '../decider.ts';
import { evolve, initialState, type TenantEvent, type TenantState } from './tenant.ts';

export type TenantCommand =
  | {
      type: 'RegisterTenant';
      tenantId: string;
      name: string;
      contactName: string;
      company: string;
      method: RegisterMethod;
      phone: string | null;
      email: string | null;
    }
  | { type: 'ApproveTenant'; tenantId: string; adminUserId: string }
  | { type: 'RejectTenant'; tenantId: string; reason: string | null }
  | { type: 'StopTenant'; tenantId: string }
  | { type: 'StartTenant'; tenantId: string }
  | { type: 'MarkTenantOnboarded'; tenantId: string; adminUserId: string };

function register(command: Extract<TenantCommand, { type: 'RegisterTenant' }>, state: TenantState): TenantEvent[] {
  if (state.status !== 'none') throw new DomainError('TENANT_NAME_TAKEN');
  const { type: _type, ...data } = command;
  return [{ type: 'TenantRegistered', data }];
}

function approve(command: Extract<TenantCommand, { type: 'ApproveTenant' }>, state: TenantState): TenantEvent[] {
  if (state.status === 'none') throw new DomainError('NOT_FOUND');
  if (state.status !== 'underReview') throw new DomainError('REGISTRATION_NOT_PENDING');
  return [{ type: 'TenantApproved', data: { tenantId: command.tenantId, adminUserId: command.adminUserId } }];
}

function reject(command: Extract<TenantCommand, { type: 'RejectTenant' }>, state: TenantState): TenantEvent[] {
  if (state.status === 'none') throw new DomainError('NOT_FOUND');
  if (state.status !== 'underReview') throw new DomainError('REGISTRATION_NOT_PENDING');
  return [{ type: 'TenantRejected', data: { tenantId: command.tenantId, reason: command.reason } }];
}

function stop(command: Extract<TenantCommand, { type: 'StopTenant' }>, state: TenantState): TenantEvent[] {
  if (state.status === 'none') throw new DomainError('NOT_FOUND');
  if (state.status === 'stopped') return [];
  if (state.status !== 'approved') throw new DomainError('REGISTRATION_NOT_PENDING');
  return [{ type: 'TenantStopped', data: { tenantId: command.tenantId } }];
}

function start(command: Extract<TenantCommand, { type: 'StartTenant' }>, state: TenantState): TenantEvent[] {
  if (state.status === 'none') throw new DomainError('NOT_FOUND');
  if (state.status === 'approved') return [];
  if (state.status !== 'stopped') throw new DomainError('REGISTRATION_NOT_PENDING');
  return [{ type: 'TenantStarted', data: { tenantId: command.tenantId } }];
}

export function decide(command: TenantCommand, state: TenantState): TenantEvent[] {
  switch (command.type) {
    case 'RegisterTenant':
      return register(command, state);
    case 'ApproveTenant':
      return approve(command, state);
    case 'RejectTenant':
      return reject(command, state);
    case 'StopTenant':
      return stop(command, state);
    case 'StartTenant':
      return start(command, state);
    case 'MarkTenantOnboarded':
      if (state.status === 'none') throw new DomainError('NOT_FOUND');
      return state.onboarded ? [] : [{ type: 'TenantOnboarded', data: { tenantId: command.tenantId, adminUserId: command.adminUserId } }];
    default:
      return unreachable(command);
  }
}

export const tenantDecider: Decider<TenantCommand, TenantEvent, TenantState> = { initialState, evolve, decide };

/** A tenant's events live in its own stream: `tenant-<id>.<id>`. */
export const tenantStream = (tenantId: string) => `tenant-${tenantId}.${tenantId}`;
