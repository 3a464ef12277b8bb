import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_TENANT, type TenantEvent } from '@iot/contracts';
import { readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { tenantsProjection } from './tenants.ts';
import {
  approvedTenants,
  isTenantActive,
  openRegistrationNamed,
  pendingRegistrations,
  tenantById,
  tenantNameInUse,
  tenantsPage,
} from './read.ts';

let sut: ReadModel;
async function given(event: TenantEvent, at?: string) {
  await sut.given(tenantsProjection, event, { tenantId: SYSTEM_TENANT, at });
}
const registered = (tenantId: string, name: string, contactName = 'Li'): TenantEvent => ({
  type: 'TenantRegistered',
  data: { tenantId, name, contactName, company: `${name} Ltd`, method: 'email', phone: null, email: `${tenantId}@mail.test` },
});

// alpha approved, bravo approved then stopped, charlie under review, delta rejected (and registered again, under review)
beforeAll(async () => {
  sut = await readModelOf(tenantsProjection);
  await given(registered('alpha', 'Alpha'), '2026-01-01T00:00:00Z');
  await given(registered('bravo', 'Bravo', 'Wang'), '2026-01-02T00:00:00Z');
  await given(registered('charlie', 'Charlie'), '2026-01-03T00:00:00Z');
  await given(registered('delta', 'Delta'), '2026-01-04T00:00:00Z');
  await given({ type: 'TenantApproved', data: { tenantId: 'alpha', adminUserId: 'alpha-admin' } }, '2026-02-01T00:00:00Z');
  await given({ type: 'TenantApproved', data: { tenantId: 'bravo', adminUserId: 'bravo-admin' } });
  await given({ type: 'TenantStopped', data: { tenantId: 'bravo' } });
  await given({ type: 'TenantRejected', data: { tenantId: 'delta', reason: 'no licence' } });
  await given(registered('delta2', 'DELTA'), '2026-01-05T00:00:00Z');
});
afterAll(async () => sut?.drop());

describe('the tenants read module', () => {
  it('finds a tenant by id, typed as stored', async () => {
    expect(await tenantById(sut.db, 'alpha')).toMatchObject({
      name: 'Alpha',
      status: 'approved',
      registerMethod: 'email',
      adminUserId: 'alpha-admin',
      auditedBy: 'tester',
    });
    expect((await tenantById(sut.db, 'alpha'))!.auditTime).toEqual(new Date('2026-02-01T00:00:00Z'));
    expect((await tenantById(sut.db, 'delta'))!.rejectReason).toBe('no licence');
    expect(await tenantById(sut.db, 'zulu')).toBeNull();
  });

  it('lets an approved tenant and the platform act, not a stopped, pending or unknown one', async () => {
    expect(await isTenantActive(sut.db, 'alpha')).toBe(true);
    expect(await isTenantActive(sut.db, SYSTEM_TENANT)).toBe(true);
    for (const id of ['bravo', 'charlie', 'delta', 'zulu']) expect(await isTenantActive(sut.db, id)).toBe(false);
  });

  it('pages tenants by status and by a part of their name or contact', async () => {
    const ids = async (filter: Parameters<typeof tenantsPage>[1]) =>
      (await tenantsPage(sut.db, filter, { page: 1, pageSize: 10, order: 'asc', sort: 'applyTime' })).rows.map((t) => t.id);
    expect(await ids({})).toEqual(['alpha', 'bravo', 'charlie', 'delta', 'delta2']);
    expect(await ids({ status: 'underReview' })).toEqual(['charlie', 'delta2']);
    expect(await ids({ name: 'wang' })).toEqual(['bravo']);
    expect(await ids({ name: 'delta', status: 'rejected' })).toEqual(['delta']);
  });

  it('answers the registration questions: the open registration of a name, a name in use, who to provision, who to claim for', async () => {
    expect(await openRegistrationNamed(sut.db, 'delta')).toEqual({ id: 'delta2', status: 'underReview' });
    expect(await openRegistrationNamed(sut.db, 'charlie')).toEqual({ id: 'charlie', status: 'underReview' });
    expect(await openRegistrationNamed(sut.db, 'alpha')).toBeNull();
    expect(await tenantNameInUse(sut.db, 'ALPHA')).toBe(true);
    expect(await tenantNameInUse(sut.db, 'echo')).toBe(false);
    expect((await approvedTenants(sut.db)).sort((a, b) => a.id.localeCompare(b.id))).toEqual([
      { id: 'alpha', adminUserId: 'alpha-admin' },
      { id: 'bravo', adminUserId: 'bravo-admin' },
    ]);
    expect((await pendingRegistrations(sut.db)).map((r) => [r.id, r.email])).toEqual([
      ['charlie', 'charlie@mail.test'],
      ['delta2', 'delta2@mail.test'],
    ]);
  });
});
