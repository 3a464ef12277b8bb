import { describe, expect, it } from 'vitest';
import { codeOf, scenario } from '../decider-testing.ts';
import { tenantDecider } from './decide.ts';
import type { TenantEvent } from './tenant.ts';

const registered: TenantEvent = {
  type: 'TenantRegistered',
  data: { tenantId: 't1', name: 'Acme', contactName: 'Li', company: 'Acme Ltd', method: 'email', phone: null, email: 'li@acme.test' },
};

const { given } = scenario(tenantDecider);

describe('tenant decider', () => {
  it('registers a new tenant under review', () => {
    const { data } = registered as Extract<TenantEvent, { type: 'TenantRegistered' }>;
    expect(given([]).when({ type: 'RegisterTenant', ...data })).toEqual([registered]);
  });

  it('refuses to register the same tenant twice', () => {
    const { data } = registered as Extract<TenantEvent, { type: 'TenantRegistered' }>;
    expect(codeOf(() => given([registered]).when({ type: 'RegisterTenant', ...data }))).toBe('TENANT_NAME_TAKEN');
  });

  it('approves a registration under review', () => {
    expect(given([registered]).when({ type: 'ApproveTenant', tenantId: 't1', adminUserId: 'u1' })).toEqual([
      { type: 'TenantApproved', data: { tenantId: 't1', adminUserId: 'u1' } },
    ]);
  });

  it('rejects a registration under review with its reason', () => {
    expect(given([registered]).when({ type: 'RejectTenant', tenantId: 't1', reason: 'duplicate' })).toEqual([
      { type: 'TenantRejected', data: { tenantId: 't1', reason: 'duplicate' } },
    ]);
  });

  it('audits a registration only once', () => {
    const approved: TenantEvent = { type: 'TenantApproved', data: { tenantId: 't1', adminUserId: 'u1' } };
    expect(codeOf(() => given([registered, approved]).when({ type: 'RejectTenant', tenantId: 't1', reason: null }))).toBe(
      'REGISTRATION_NOT_PENDING',
    );
    expect(codeOf(() => given([registered, approved]).when({ type: 'ApproveTenant', tenantId: 't1', adminUserId: 'u2' }))).toBe(
      'REGISTRATION_NOT_PENDING',
    );
  });

  it('does not audit a tenant that never registered', () => {
    expect(codeOf(() => given([]).when({ type: 'ApproveTenant', tenantId: 't1', adminUserId: 'u1' }))).toBe('NOT_FOUND');
  });

  it('stops an approved tenant and starts it again; stopping twice changes nothing', () => {
    const approved: TenantEvent = { type: 'TenantApproved', data: { tenantId: 't1', adminUserId: 'u1' } };
    const stopped: TenantEvent = { type: 'TenantStopped', data: { tenantId: 't1' } };
    expect(given([registered, approved]).when({ type: 'StopTenant', tenantId: 't1' })).toEqual([stopped]);
    expect(given([registered, approved, stopped]).when({ type: 'StopTenant', tenantId: 't1' })).toEqual([]);
    expect(given([registered, approved, stopped]).when({ type: 'StartTenant', tenantId: 't1' })).toEqual([
      { type: 'TenantStarted', data: { tenantId: 't1' } },
    ]);
    expect(codeOf(() => given([registered]).when({ type: 'StopTenant', tenantId: 't1' }))).toBe('REGISTRATION_NOT_PENDING');
  });
});
