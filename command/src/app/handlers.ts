import { randomBytes } from 'node:crypto';
import { DomainError, type AppRoutes } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { isRootUser, principalPermissions, type Principal } from '@iot/contracts/http/principal.ts';
import { newAggregateId } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { setPassword, verifyPassword } from '../auth/credentials.ts';
import { clearLoginFailures, reserveLoginAttempt } from '../auth/throttle.ts';
import { createSession, revokeSubjectSessions, SESSION_HOURS } from '../auth/sessions.ts';
import { moveClaim, releaseClaims, withClaim } from '../shared/claims.ts';
import { appDecider, appStream } from './decide.ts';
import { appNameClaim, appNameScope } from './names.ts';

/** App secrets sit in the credential store beside passwords, hashed with argon2id, under their own subject. */
export const appCredentialSubject = (appId: string) => `app:${appId}`;
const newSecret = () => randomBytes(24).toString('base64url');
/** What the caller may put in an app's scope: their own permissions ('*' for all non-platform ones). */
const grantableOf = (principal: Principal) => [...principal.permissions];

/** The owner of an app and the tenant's root user may manage it. */
async function mayManage(ctx: RequestContext, principal: Principal, appId: string): Promise<boolean> {
  if (isRootUser(principal)) return true;
  return (await ctx.ports.lookups.appById(principal.tenantId, appId))?.ownerId === principal.id;
}

/** Apps and their keys (spec §3 App, §6 sharing): key and secret shown once, secret stored as a hash. */
export const appHandlers: Pick<Handlers<AppRoutes>, 'app.create' | 'app.update' | 'app.rotateSecret' | 'app.delete' | 'app.token'> = {
  async 'app.create'({ body }, ctx) {
    const principal = callerOf(ctx);
    // An app belongs to a person: another app cannot create one.
    if (principal.kind !== 'user') throw new DomainError('FORBIDDEN');
    const appId = newAggregateId(commandContextOf(ctx));
    const appKey = `ak${randomBytes(12).toString('hex')}`;
    const appSecret = newSecret();
    await withClaim(ctx.ports.db, appNameClaim(principal.tenantId, body.name, appId), 'APP_NAME_TAKEN', () =>
      runCommand(ctx, appDecider, appStream(principal.tenantId, appId), {
        type: 'CreateApp',
        appId,
        appKey,
        ownerId: principal.id,
        grantable: grantableOf(principal),
        app: body,
      }),
    );
    await setPassword(ctx.ports.db, appCredentialSubject(appId), principal.tenantId, appSecret);
    return { id: appId, appKey, appSecret };
  },

  async 'app.update'({ body }, ctx) {
    const principal = callerOf(ctx);
    const { id, status, ...fields } = body;
    const result = await moveClaim(ctx.ports.db, appNameClaim(principal.tenantId, fields.name, id), 'APP_NAME_TAKEN', async () =>
      runCommand(ctx, appDecider, appStream(principal.tenantId, id), {
        type: 'UpdateApp',
        appId: id,
        status,
        mayManage: await mayManage(ctx, principal, id),
        grantable: grantableOf(principal),
        app: fields,
      }),
    );
    if (result.state.fields?.status === 'stopped') await revokeSubjectSessions(ctx.ports.db, id);
    return { id };
  },

  async 'app.rotateSecret'({ body }, ctx) {
    const { db } = ctx.ports;
    const principal = callerOf(ctx);
    const { id } = body;
    await runCommand(ctx, appDecider, appStream(principal.tenantId, id), {
      type: 'RotateAppSecret',
      appId: id,
      mayManage: await mayManage(ctx, principal, id),
    });
    const appSecret = newSecret();
    await setPassword(db, appCredentialSubject(id), principal.tenantId, appSecret);
    // Tokens issued with the old secret end with it.
    await revokeSubjectSessions(db, id);
    const appKey = (await ctx.ports.lookups.appById(principal.tenantId, id))?.appKey ?? '';
    return { id, appKey, appSecret };
  },

  async 'app.delete'({ query }, ctx) {
    const { db } = ctx.ports;
    const principal = callerOf(ctx);
    const { id } = query;
    await runCommand(ctx, appDecider, appStream(principal.tenantId, id), {
      type: 'DeleteApp',
      appId: id,
      mayManage: await mayManage(ctx, principal, id),
    });
    await revokeSubjectSessions(db, id);
    await db.query('delete from auth_credentials where subject_id = $1', [appCredentialSubject(id)]);
    await releaseClaims(db, appNameScope(principal.tenantId), id);
    return { id };
  },

  /** OAuth client credentials: a token that carries exactly the app's scope. */
  async 'app.token'({ body }, ctx) {
    const { db, lookups } = ctx.ports;
    const { appKey, appSecret } = body;
    // Guessing secrets is throttled like guessing passwords: per key and per address.
    await reserveLoginAttempt(db, `app:${appKey}`, ctx.ip);
    const row = await lookups.appByKey(appKey);
    // Same answer, same work, whether the key or the secret is wrong.
    if (!(await verifyPassword(db, row ? appCredentialSubject(row.id) : null, appSecret)) || !row) throw new DomainError('APP_AUTH_FAILED');
    await clearLoginFailures(db, `app:${appKey}`, ctx.ip);
    if (row.status !== 'enabled') throw new DomainError('ACCOUNT_STOPPED');
    if (!(await lookups.isTenantActive(row.tenantId))) throw new DomainError('TENANT_STOPPED');
    const token = await createSession(db, { kind: 'app', id: row.id, tenantId: row.tenantId }, ctx.ip);
    const scope = principalPermissions({ kind: 'app', isSystemAdmin: false, isTenantAdmin: false, scope: row.scope }, []);
    return { token, expiresIn: SESSION_HOURS * 3600, scope: [...scope] };
  },
};
