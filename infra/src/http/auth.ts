import type { FastifyRequest, FastifyTypeProvider } from 'fastify';
import type { AnyFastify } from './instance.ts';
import { TOKEN_COOKIE } from '@iot/contracts';
import type { Sql } from '@iot/infra/postgres/sql.ts';
import { hashToken } from '@iot/command/auth/sessions.ts';
import { appById } from '@iot/projections/app/read.ts';
import { permissionsOfRoles } from '@iot/projections/role/read.ts';
import { isTenantActive } from '@iot/projections/tenant/read.ts';
import { userById } from '@iot/projections/user/read.ts';
import { replyError } from './envelope.ts';
import { hasPermission, type Principal } from './principal.ts';
import { grantedByRoles, principalPermissions, type PrincipalGrants } from '@iot/contracts/http/principal.ts';

/** The login token: the `token` cookie, the spec's `Authentication` header, or a Bearer Authorization. */
export function tokenOf(request: FastifyRequest): string | null {
  const header = request.headers.authentication;
  if (typeof header === 'string' && header.length > 0) return header.replace(/^Bearer\s+/i, '');
  const authorization = request.headers.authorization;
  if (authorization?.startsWith('Bearer ')) return authorization.slice(7);
  return request.cookies?.[TOKEN_COOKIE] ?? null;
}

/** Who a session is: its user or app as the read models hold it now, of the session's own tenant. */
async function subjectOf(db: Sql, session: { subject_kind: 'user' | 'app'; subject_id: string; tenant_id: string }) {
  if (session.subject_kind === 'app') {
    const app = await appById(db, session.tenant_id, session.subject_id);
    if (!app) return null;
    const grants: PrincipalGrants = { kind: 'app', isSystemAdmin: false, isTenantAdmin: false, scope: app.scope };
    return { name: app.name, status: app.status, grants, permissions: principalPermissions(grants, []) };
  }
  const user = await userById(db, session.tenant_id, session.subject_id);
  if (!user) return null;
  const grants: PrincipalGrants = { kind: 'user', isSystemAdmin: user.isSystemAdmin, isTenantAdmin: user.isTenantAdmin };
  // Permissions of a principal (principalPermissions): an administrator's and an app's follow from the row, anyone else's from their roles.
  const granted = grantedByRoles(grants) ? await permissionsOfRoles(db, user.tenantId, user.roleIds) : [];
  return { name: user.username, status: user.status, grants, permissions: principalPermissions(grants, granted) };
}

export async function resolvePrincipal(db: Sql, token: string): Promise<Principal | null> {
  const tokenHash = hashToken(token);
  const session = (
    await db.query<{ subject_kind: 'user' | 'app'; subject_id: string; tenant_id: string }>(
      'select subject_kind, subject_id, tenant_id from auth_sessions where token_hash = $1 and revoked_at is null and expires_at > now()',
      [tokenHash],
    )
  ).rows[0];
  if (!session) return null;
  const subject = await subjectOf(db, session);
  // A stopped user or app, a deleted one, or one of a tenant that is not active holds no session.
  if (!subject || subject.status !== 'enabled' || !(await isTenantActive(db, session.tenant_id))) return null;
  return {
    kind: session.subject_kind,
    id: session.subject_id,
    tenantId: session.tenant_id,
    username: subject.name,
    isSystemAdmin: subject.grants.isSystemAdmin,
    permissions: subject.permissions,
    stationId: null,
    tokenHash,
  };
}

/**
 * Spec §7: development builds send a `tenant` header. In development mode only, it lets the system
 * administrator act in that (active) tenant as its administrator: everything of the tenant, nothing of
 * the platform. Anyone else, and everyone in production mode, gets the tenant of their token.
 */
export async function actingPrincipal(db: Sql, principal: Principal, header: unknown): Promise<Principal> {
  if (!principal.isSystemAdmin || typeof header !== 'string' || header.length === 0 || header.length > 64) return principal;
  if (header === principal.tenantId || !(await isTenantActive(db, header))) return principal;
  return { ...principal, tenantId: header, isSystemAdmin: false, permissions: new Set(['*']) };
}

/**
 * Every route declares what it needs; a route that forgets is refused at start-up, not opened by accident.
 * `developmentDb` (development mode only) turns on the `tenant` header of `actingPrincipal`.
 */
export function registerAccessControl<P extends FastifyTypeProvider>(
  app: AnyFastify<P>,
  resolve: (token: string) => Promise<Principal | null>,
  developmentDb: Sql | null = null,
): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('stationId', null);
  // Spec §7: every GET carries a cache-busting `timestamp`, and the current group travels as `stationId`.
  // Both are request-wide, so they are taken off the query before a route's schema sees it.
  app.addHook('preValidation', async (request) => {
    const query = request.query as Record<string, unknown> | undefined;
    const station = query?.stationId ?? request.headers.stationid;
    if (typeof station === 'string' && station.length > 0 && station.length <= 64) request.stationId = station;
    if (query && typeof query === 'object') {
      delete query.timestamp;
      delete query.stationId;
    }
  });
  app.addHook('onRoute', (route) => {
    const url = route.url;
    if (!url.startsWith('/api/')) return;
    if (!route.config?.permission) throw new Error(`route ${route.method} ${url} declares no permission`);
  });
  // Before validation: a caller without the permission learns nothing about what a valid body looks like.
  app.addHook('preValidation', async (request, reply) => {
    const permission = request.routeOptions.config.permission;
    // The broker's hooks check their shared secret themselves (infra/src/mqtt/hooks.ts): no user is resolved.
    if (!permission || permission === 'public' || permission === 'brokerSecret') return;
    const token = tokenOf(request);
    const principal = token ? await resolve(token) : null;
    if (!principal) return replyError(reply, request, 'UNAUTHENTICATED');
    request.principal = developmentDb ? await actingPrincipal(developmentDb, principal, request.headers.tenant) : principal;
    if (request.stationId) request.principal.stationId = request.stationId;
    if (permission !== 'authenticated' && !hasPermission(request.principal, permission)) return replyError(reply, request, 'FORBIDDEN');
  });
}
