import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { appCreateBody, appCredentials, appToken, appTokenBody, appUpdateBody, DomainError, envelope, idBody, perm } from '@iot/contracts';
import type { RoutesPlugin } from '@iot/infra/http/app.ts';
import { ok } from '@iot/infra/http/envelope.ts';
import { principalOf, type Principal } from '@iot/infra/http/principal.ts';
import { isTenantActive } from '@iot/query/shared/lookups.ts';
import { newAggregateId } from '../handler.ts';
import { contextOf } from '../context.ts';
import { isRootUser, runCommand } from '../auth/commands.ts';
import { setPassword, verifyPassword } from '../auth/credentials.ts';
import { createSession, revokeSubjectSessions, SESSION_HOURS } from '../auth/sessions.ts';
import { appDecider, appStream } from './decide.ts';

/** App secrets sit in the credential store beside passwords, hashed with argon2id, under their own subject. */
export const appCredentialSubject = (appId: string) => `app:${appId}`;
const newSecret = () => randomBytes(24).toString('base64url');
const grantableOf = (principal: Principal) => [...principal.permissions];

/** Apps and their keys (spec §3 App, §6 sharing): key and secret shown once, secret stored as a hash. */
export const appRoutes: RoutesPlugin = async (app, ctx) => {
  const { db } = ctx;

  async function mayManage(principal: Principal, appId: string): Promise<boolean> {
    if (isRootUser(principal)) return true;
    const row = await db.query('select 1 from rm_apps where id = $1 and tenant_id = $2 and owner_id = $3', [
      appId,
      principal.tenantId,
      principal.id,
    ]);
    return row.rowCount > 0;
  }

  app.post(
    '/api/auth/app',
    { config: { permission: perm.appAdd }, schema: { tags: ['app'], body: appCreateBody, response: { 200: envelope(appCredentials) } } },
    async (request) => {
      const principal = principalOf(request);
      if (principal.kind !== 'user') throw new DomainError('FORBIDDEN');
      const appId = newAggregateId(contextOf(request));
      const appKey = `ak${randomBytes(12).toString('hex')}`;
      const appSecret = newSecret();
      await runCommand(ctx, request, appDecider, appStream(principal.tenantId, appId), {
        type: 'CreateApp',
        appId,
        appKey,
        ownerId: principal.id,
        grantable: grantableOf(principal),
        app: request.body,
      });
      await setPassword(db, appCredentialSubject(appId), principal.tenantId, appSecret);
      return ok({ id: appId, appKey, appSecret });
    },
  );

  app.put(
    '/api/auth/app',
    {
      config: { permission: perm.appEdit },
      schema: { tags: ['app'], body: appUpdateBody, response: { 200: envelope(z.object({ id: z.string() })) } },
    },
    async (request) => {
      const principal = principalOf(request);
      const { id, status, ...fields } = request.body;
      const result = await runCommand(ctx, request, appDecider, appStream(principal.tenantId, id), {
        type: 'UpdateApp',
        appId: id,
        status,
        mayManage: await mayManage(principal, id),
        grantable: grantableOf(principal),
        app: fields,
      });
      if (result.state.fields?.status === 'stopped') await revokeSubjectSessions(db, id);
      return ok({ id });
    },
  );

  app.post(
    '/api/auth/app/getSecret',
    { config: { permission: perm.appSecret }, schema: { tags: ['app'], body: idBody, response: { 200: envelope(appCredentials) } } },
    async (request) => {
      const principal = principalOf(request);
      const { id } = request.body;
      await runCommand(ctx, request, appDecider, appStream(principal.tenantId, id), {
        type: 'RotateAppSecret',
        appId: id,
        mayManage: await mayManage(principal, id),
      });
      const appSecret = newSecret();
      await setPassword(db, appCredentialSubject(id), principal.tenantId, appSecret);
      // Tokens issued with the old secret end with it.
      await revokeSubjectSessions(db, id);
      const appKey = (await db.query<{ app_key: string }>('select app_key from rm_apps where id = $1', [id])).rows[0]?.app_key ?? '';
      return ok({ id, appKey, appSecret });
    },
  );

  app.delete(
    '/api/auth/app',
    {
      config: { permission: perm.appDelete },
      schema: { tags: ['app'], querystring: idBody, response: { 200: envelope(z.object({ id: z.string() })) } },
    },
    async (request) => {
      const principal = principalOf(request);
      const { id } = request.query;
      await runCommand(ctx, request, appDecider, appStream(principal.tenantId, id), {
        type: 'DeleteApp',
        appId: id,
        mayManage: await mayManage(principal, id),
      });
      await revokeSubjectSessions(db, id);
      await db.query('delete from auth_credentials where subject_id = $1', [appCredentialSubject(id)]);
      return ok({ id });
    },
  );

  /** OAuth client credentials: a token that carries exactly the app's scope. */
  app.post(
    '/api/auth/app/token',
    { config: { permission: 'public' }, schema: { tags: ['app'], body: appTokenBody, response: { 200: envelope(appToken) } } },
    async (request) => {
      const { appKey, appSecret } = request.body;
      const row = (
        await db.query<{ id: string; tenant_id: string; status: string; scope: string[] }>(
          'select id, tenant_id, status, scope from rm_apps where app_key = $1',
          [appKey],
        )
      ).rows[0];
      if (!(await verifyPassword(db, row ? appCredentialSubject(row.id) : null, appSecret)) || !row)
        throw new DomainError('APP_AUTH_FAILED');
      if (row.status !== 'enabled') throw new DomainError('ACCOUNT_STOPPED');
      if (!(await isTenantActive(db, row.tenant_id))) throw new DomainError('TENANT_STOPPED');
      const token = await createSession(db, { kind: 'app', id: row.id, tenantId: row.tenant_id }, request.ip);
      return ok({ token, expiresIn: SESSION_HOURS * 3600, scope: row.scope.filter((p) => !p.startsWith('platform:')) });
    },
  );
};
