import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinRoles } from '@iot/contracts';
import { onboardingSteps, tenantOnboarding } from '@iot/command/tenant/onboarding.ts';
import { tenantAdminId } from '@iot/command/tenant/handlers.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';
import { PROCESS_ADMIN_PASSWORD as ADMIN_PASSWORD, startProcess, waitFor } from '../harness/process.ts';

describe('tenant onboarding survives a crash between any two steps', () => {
  let db: TestDatabase;
  let dataDir: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'dc-crash-'));
  });
  afterAll(async () => {
    await db?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  // Every step but the last: a crash after the last one leaves nothing to resume.
  const crashPoints = onboardingSteps.slice(0, -1);

  it.each(crashPoints)('killed after step %s, the restart finishes the tenant exactly once', async (step) => {
    // Given a platform that kills itself right after this step of onboarding
    const first = await startProcess(db, dataDir, { FAULT_CRASH_AFTER_STEP: `${tenantOnboarding.name}:${step}` });
    const email = `crash-${step.toLowerCase()}@acme.test`;
    const tenantName = `crash${step}`;
    expect((await first.call('tenant.sendCode', { body: { method: 'email', target: email } })).status).toBe(200);
    const code = await waitFor('the code', async () => {
      const rows = await db.pool.query<{ body: string }>('select body from notify_outbox where recipient = $1 order by id desc limit 1', [
        email,
      ]);
      return /(\d{6})/.exec(rows.rows[0]?.body ?? '')?.[1];
    });
    const registered = await first.call('tenant.register', {
      body: { tenantName, contactName: 'Crash Test', company: 'Acme', method: 'email', email, code, password: 'Tenant#pw1' },
    });
    expect(registered.status).toBe(200);
    const tenantId = registered.json!.data.id as string;
    const admin = await first.call('auth.login', { body: { account: 'admin', password: ADMIN_PASSWORD, agreement: true } });

    // When the audit approves it, and the process dies mid-onboarding
    await first.call('tenant.approve', { body: { id: tenantId }, token: admin.json!.data.token }).catch(() => null);
    expect(await first.exited).toBe('SIGKILL');
    const onboardedBeforeRestart = await db.pool.query(`select 1 from es_events where type = 'TenantOnboarded' and stream_name = $1`, [
      `tenant-${tenantId}.${tenantId}`,
    ]);
    expect(onboardedBeforeRestart.rowCount).toBe(0);

    // Then a restart finishes it: the administrator logs in with the registration's password
    const second = await startProcess(db, dataDir);
    try {
      const login = await waitFor('the tenant administrator to log in', async () => {
        const r = await second.call('auth.login', { body: { account: tenantName, password: 'Tenant#pw1', agreement: true } });
        return r.status === 200 ? r.json!.data : null;
      });
      expect(login.user.id).toBe(tenantAdminId(tenantId));
      await waitFor('TenantOnboarded', async () => {
        const r = await db.pool.query(`select 1 from es_events where type = 'TenantOnboarded' and stream_name = $1`, [
          `tenant-${tenantId}.${tenantId}`,
        ]);
        return r.rowCount === 1;
      });

      // ... and every step applied exactly once
      const counts = await db.pool.query<{ type: string; n: number }>(
        `select type, count(*)::int as n from es_events where stream_name like $1 group by type order by type`,
        [`%-${tenantId}.%`],
      );
      const byType = Object.fromEntries(counts.rows.map((r) => [r.type, r.n]));
      expect(byType).toMatchObject({
        TenantRegistered: 1,
        TenantApproved: 1,
        UserCreated: 1,
        RoleCreated: builtinRoles.length,
        UserUpdated: 1,
        TenantOnboarded: 1,
      });
      const users = await db.pool.query('select id from rm_users where tenant_id = $1', [tenantId]);
      expect(users.rowCount).toBe(1);
      const roles = await db.pool.query<{ menu_ids: string[] }>('select menu_ids from rm_roles where tenant_id = $1', [tenantId]);
      expect(roles.rowCount).toBe(builtinRoles.length);
      expect(roles.rows.every((r) => r.menu_ids.length > 0)).toBe(true);
      // The applicant hears of it at least once (a crash between the message and the next step repeats it).
      const mails = await db.pool.query(`select 1 from notify_outbox where recipient = $1 and subject like 'Registration approved%'`, [
        email,
      ]);
      expect(mails.rowCount).toBeGreaterThanOrEqual(1);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });
});
