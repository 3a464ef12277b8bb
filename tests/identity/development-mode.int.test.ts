import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, TEST_ADMIN_PASSWORD, type TestPlatform } from '../harness/platform.ts';

/**
 * Spec §7: development builds send a `tenant` header. With APP_MODE=development it selects the tenant the
 * system administrator acts in (as that tenant's administrator); it never lends anyone else another tenant.
 * Production mode ignores it: tests/identity/hardening.int.test.ts and the walk in tests/security/access.int.test.ts.
 */
let sut: TestPlatform;
let system: string;
let devAdmin: string;
const usernames = async (token: string, headers: Record<string, string> = {}) => {
  const r = await sut.call('user.list', { token, headers, query: { pageSize: '100' } });
  expect(r.status, r.body).toBe(200);
  return (r.json!.data.rows as { username: string }[]).map((u) => u.username);
};

beforeAll(async () => {
  sut = await startTestPlatform({ APP_MODE: 'development' });
  await sut.seedTenant({ id: 'devco', name: 'devCo', adminUsername: 'devAdmin', adminPassword: 'Dev#pw123' });
  await sut.seedTenant({ id: 'othco', name: 'othCo', adminUsername: 'othAdmin', adminPassword: 'Oth#pw123' });
  system = await sut.login('admin', TEST_ADMIN_PASSWORD);
  devAdmin = await sut.login('devAdmin', 'Dev#pw123');
});
afterAll(async () => sut?.stop());

describe('the tenant header in development mode', () => {
  it('lets the system administrator act in the named tenant as its administrator, and write there', async () => {
    expect(await usernames(system)).not.toContain('devAdmin');
    expect(await usernames(system, { tenant: 'devco' })).toContain('devAdmin');
    const created = await sut.call('role.create', {
      token: system,
      headers: { tenant: 'devco' },
      body: { name: 'devOnlyRole', remark: 'made through the header' },
    });
    expect(created.status, created.body).toBe(200);
    const roles = await sut.call('role.list', { token: devAdmin, query: { pageSize: '100' } });
    expect((roles.json!.data.rows as { name: string }[]).map((r) => r.name)).toContain('devOnlyRole');
  });

  it("acts in the tenant only: the platform's own routes are refused while the header names a tenant", async () => {
    expect((await sut.call('tenant.list', { token: system })).status).toBe(200);
    expect((await sut.call('tenant.list', { token: system, headers: { tenant: 'devco' } })).status).toBe(403);
  });

  it('ignores a header naming a tenant that does not exist', async () => {
    expect(await usernames(system, { tenant: 'nosuch' })).toEqual(await usernames(system));
  });

  it("never lends a tenant's own user another tenant", async () => {
    const own = await usernames(devAdmin, { tenant: 'othco' });
    expect(own).toContain('devAdmin');
    expect(own).not.toContain('othAdmin');
  });
});
