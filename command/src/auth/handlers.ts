import { DomainError, type AuthRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { grantedByRoles, principalPermissions, type PrincipalGrants } from '@iot/contracts/http/principal.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pendingCredential } from '../tenant/handlers.ts';
import { verifyPassword } from './credentials.ts';
import { createSession, revokeSession } from './sessions.ts';
import { clearLoginFailures, reserveLoginAttempt } from './throttle.ts';

interface LoginRow extends Record<string, unknown> {
  id: string;
  tenant_id: string;
  username: string;
  email: string | null;
  status: string;
  is_system_admin: boolean;
  is_tenant_admin: boolean;
  home_page: string | null;
}

/**
 * An applicant whose registration is not approved yet (or was refused) logs in with its name and password
 * and is told so, instead of "wrong password"; anyone without that password learns nothing.
 */
async function assertNoRegistration(db: Sql, account: string, password: string): Promise<void> {
  const registration = (
    await db.query<{ id: string; status: string }>(
      `select id, status from rm_tenants where lower(name) = lower($1) and status in ('underReview', 'rejected') order by apply_time desc limit 1`,
      [account],
    )
  ).rows[0];
  if (!registration || !(await verifyPassword(db, pendingCredential(registration.id), password))) return;
  throw new DomainError(registration.status === 'rejected' ? 'REGISTRATION_REJECTED' : 'REGISTRATION_UNDER_REVIEW');
}

/** Login and logout (spec §7): a session token in the `token` cookie and in the answer, for the `Authentication` header. */
export const authHandlers: Pick<Handlers<AuthRoutes>, 'auth.login' | 'auth.logout'> = {
  async 'auth.login'({ body }, ctx) {
    const { db, lookups } = ctx.ports;
    const { account, password, agreement } = body;
    if (!agreement) throw new DomainError('AGREEMENT_REQUIRED');
    await reserveLoginAttempt(db, account, ctx.ip);
    const found = await db.query<LoginRow>(
      `select id, tenant_id, username, email, status, is_system_admin, is_tenant_admin, home_page
       from rm_users where lower(username) = lower($1) or lower(email) = lower($1)
       order by (lower(username) = lower($1)) desc limit 1`,
      [account],
    );
    const user = found.rows[0] ?? null;
    // Same answer, same work, whether the account or the password is wrong.
    if (!user) await assertNoRegistration(db, account, password);
    if (!(await verifyPassword(db, user?.id ?? null, password)) || !user) throw new DomainError('LOGIN_FAILED');
    await clearLoginFailures(db, account, ctx.ip);
    if (user.status !== 'enabled') throw new DomainError('ACCOUNT_STOPPED');
    if (!(await lookups.isTenantActive(user.tenant_id))) throw new DomainError('TENANT_STOPPED');
    const grants: PrincipalGrants = { kind: 'user', isSystemAdmin: user.is_system_admin, isTenantAdmin: user.is_tenant_admin };
    const permissions = principalPermissions(grants, grantedByRoles(grants) ? await lookups.rolePermissions(user.id) : []);
    const token = await createSession(db, { kind: 'user', id: user.id, tenantId: user.tenant_id }, ctx.ip);
    ctx.cookie.set(token);
    return {
      token,
      user: {
        id: user.id,
        tenantId: user.tenant_id,
        username: user.username,
        email: user.email,
        isSystemAdmin: user.is_system_admin,
        permissions: [...permissions],
        homePage: user.home_page,
      },
    };
  },

  async 'auth.logout'(_input, ctx) {
    await revokeSession(ctx.ports.db, callerOf(ctx).tokenHash);
    ctx.cookie.clear();
    return null;
  },
};
