import { DomainError, type AuthRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { grantedByRoles, principalPermissions, type PrincipalGrants } from '@iot/contracts/http/principal.ts';
import type { Lookups } from '@iot/contracts/ports/lookups.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pendingCredential } from '../tenant/handlers.ts';
import { verifyPassword } from './credentials.ts';
import { createSession, revokeSession } from './sessions.ts';
import { clearLoginFailures, reserveLoginAttempt } from './throttle.ts';

/**
 * An applicant whose registration is not approved yet (or was refused) logs in with its name and password
 * and is told so, instead of "wrong password"; anyone without that password learns nothing.
 */
async function assertNoRegistration(db: Sql, lookups: Lookups, account: string, password: string): Promise<void> {
  const registration = await lookups.openRegistrationNamed(account);
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
    const user = await lookups.userByAccount(account);
    // Same answer, same work, whether the account or the password is wrong.
    if (!user) await assertNoRegistration(db, lookups, account, password);
    if (!(await verifyPassword(db, user?.id ?? null, password)) || !user) throw new DomainError('LOGIN_FAILED');
    await clearLoginFailures(db, account, ctx.ip);
    if (user.status !== 'enabled') throw new DomainError('ACCOUNT_STOPPED');
    if (!(await lookups.isTenantActive(user.tenantId))) throw new DomainError('TENANT_STOPPED');
    const grants: PrincipalGrants = { kind: 'user', isSystemAdmin: user.isSystemAdmin, isTenantAdmin: user.isTenantAdmin };
    const permissions = principalPermissions(grants, grantedByRoles(grants) ? await lookups.userPermissions(user.id) : []);
    const token = await createSession(db, { kind: 'user', id: user.id, tenantId: user.tenantId }, ctx.ip);
    ctx.cookie.set(token);
    return {
      token,
      user: {
        id: user.id,
        tenantId: user.tenantId,
        username: user.username,
        email: user.email,
        isSystemAdmin: user.isSystemAdmin,
        permissions: [...permissions],
        homePage: user.homePage,
      },
    };
  },

  async 'auth.logout'(_input, ctx) {
    await revokeSession(ctx.ports.db, callerOf(ctx).tokenHash);
    ctx.cookie.clear();
    return null;
  },
};
