import { z } from 'zod';
import { currentUser, DomainError, envelope, loginBody, loginResult, SYSTEM_TENANT, TOKEN_COOKIE } from '@iot/contracts';
import type { RoutesPlugin } from '@iot/infra/http/app.ts';
import { ok } from '@iot/infra/http/envelope.ts';
import { principalOf } from '@iot/infra/http/principal.ts';
import { permissionsOf } from '@iot/infra/http/auth.ts';
import { credentialsSchema, verifyPassword } from './credentials.ts';
import { createSession, revokeSession, sessionsSchema } from './sessions.ts';
import { assertNotThrottled, clearLoginFailures, recordLoginFailure, throttleSchema } from './throttle.ts';

interface LoginRow extends Record<string, unknown> {
  id: string;
  tenant_id: string;
  username: string;
  email: string | null;
  status: string;
  is_system_admin: boolean;
  is_tenant_admin: boolean;
  home_page: string | null;
  tenant_status: string | null;
}

export const authRoutes: RoutesPlugin = async (app, { db }) => {
  await db.query(credentialsSchema);
  await db.query(sessionsSchema);
  await db.query(throttleSchema);

  app.post(
    '/api/auth/login',
    {
      config: { permission: 'public' },
      schema: { tags: ['auth'], body: loginBody, response: { 200: envelope(loginResult) } },
    },
    async (request, reply) => {
      const { account, password, agreement } = request.body;
      if (!agreement) throw new DomainError('AGREEMENT_REQUIRED');
      await assertNotThrottled(db, account, request.ip);
      const found = await db.query<LoginRow>(
        `select u.id, u.tenant_id, u.username, u.email, u.status, u.is_system_admin, u.is_tenant_admin, u.home_page, t.status as tenant_status
         from rm_users u left join rm_tenants t on t.id = u.tenant_id
         where lower(u.username) = lower($1) or lower(u.email) = lower($1)
         order by (lower(u.username) = lower($1)) desc limit 1`,
        [account],
      );
      const user = found.rows[0] ?? null;
      // Same answer, same work, whether the account or the password is wrong.
      if (!(await verifyPassword(db, user?.id ?? null, password)) || !user) {
        await recordLoginFailure(db, account, request.ip);
        throw new DomainError('LOGIN_FAILED');
      }
      await clearLoginFailures(db, account);
      if (user.status !== 'enabled') throw new DomainError('ACCOUNT_STOPPED');
      if (user.tenant_id !== SYSTEM_TENANT && user.tenant_status !== 'approved') throw new DomainError('TENANT_STOPPED');
      const token = await createSession(db, { kind: 'user', id: user.id, tenantId: user.tenant_id }, request.ip);
      reply.setCookie(TOKEN_COOKIE, token, { path: '/', httpOnly: true, sameSite: 'lax' });
      const permissions = await permissionsOf(db, {
        ...user,
        subject_kind: 'user',
        subject_id: user.id,
        tenant_status: user.tenant_status,
      });
      return ok({
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
      });
    },
  );

  app.post(
    '/api/auth/logout',
    { config: { permission: 'authenticated' }, schema: { tags: ['auth'], response: { 200: envelope(z.null()) } } },
    async (request, reply) => {
      await revokeSession(db, principalOf(request).tokenHash);
      reply.clearCookie(TOKEN_COOKIE, { path: '/' });
      return ok(null);
    },
  );

  app.get(
    '/api/auth/user/currentUser',
    { config: { permission: 'authenticated' }, schema: { tags: ['auth'], response: { 200: envelope(currentUser) } } },
    async (request) => {
      const principal = principalOf(request);
      const row = (
        await db.query<{ email: string | null; home_page: string | null }>('select email, home_page from rm_users where id = $1', [
          principal.id,
        ])
      ).rows[0];
      return ok({
        id: principal.id,
        tenantId: principal.tenantId,
        username: principal.username,
        email: row?.email ?? null,
        isSystemAdmin: principal.isSystemAdmin,
        permissions: [...principal.permissions],
        homePage: row?.home_page ?? null,
      });
    },
  );
};
