import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SYSTEM_TENANT, TOKEN_COOKIE } from '@iot/contracts';
import type { Sql } from '@iot/infra/postgres/sql.ts';
import { hashToken } from '@iot/command/auth/sessions.ts';
import { isTenantActive, rolePermissions } from '@iot/query/shared/lookups.ts';
import { replyError } from './envelope.ts';
import { hasPermission, type Principal } from './principal.ts';
import { grantedByRoles, principalPermissions } from '@iot/contracts/http/principal.ts';

/** The login token: the `token` cookie, the spec's `Authentication` header, or a Bearer Authorization. */
export function tokenOf(request: FastifyRequest): string | null {
  const header = request.headers.authentication;
  if (typeof header === 'string' && header.length > 0) return header.replace(/^Bearer\s+/i, '');
  const authorization = request.headers.authorization;
  if (authorization?.startsWith('Bearer ')) return authorization.slice(7);
  return request.cookies?.[TOKEN_COOKIE] ?? null;
}

interface SessionRow extends Record<string, unknown> {
  subject_kind: 'user' | 'app';
  subject_id: string;
  tenant_id: string;
  username: string | null;
  status: string | null;
  is_system_admin: boolean | null;
  is_tenant_admin: boolean | null;
  tenant_status: string | null;
  /** An app's OAuth scope. */
  scope?: string[] | null;
}

/**
 * Permissions of a principal: the system administrator holds everything ('*' with `platform:`), a
 * tenant's administrator everything but `platform:` (hasPermission keeps those for the system
 * administrator), an app exactly its scope, anyone else the permissions of the menus their roles grant.
 */
export async function permissionsOf(db: Sql, row: SessionRow): Promise<Set<string>> {
  const grants = {
    kind: row.subject_kind,
    isSystemAdmin: row.is_system_admin === true,
    isTenantAdmin: row.is_tenant_admin === true,
    scope: row.scope ?? null,
  };
  return principalPermissions(grants, grantedByRoles(grants) ? await rolePermissions(db, row.subject_id) : []);
}

export async function resolvePrincipal(db: Sql, token: string): Promise<Principal | null> {
  const tokenHash = hashToken(token);
  const result = await db.query<SessionRow>(
    `select s.subject_kind, s.subject_id, s.tenant_id, coalesce(u.username, a.name) as username, coalesce(u.status, a.status) as status,
       u.is_system_admin, u.is_tenant_admin, t.status as tenant_status, a.scope
     from auth_sessions s
     left join rm_users u on s.subject_kind = 'user' and u.id = s.subject_id and u.tenant_id = s.tenant_id
     left join rm_apps a on s.subject_kind = 'app' and a.id = s.subject_id and a.tenant_id = s.tenant_id
     left join rm_tenants t on t.id = s.tenant_id
     where s.token_hash = $1 and s.revoked_at is null and s.expires_at > now()`,
    [tokenHash],
  );
  const row = result.rows[0];
  // A stopped user or app, a deleted one, or one of a tenant that is not active holds no session.
  if (!row || row.status !== 'enabled') return null;
  if (row.tenant_id !== SYSTEM_TENANT && row.tenant_status !== 'approved') return null;
  return {
    kind: row.subject_kind,
    id: row.subject_id,
    tenantId: row.tenant_id,
    username: row.username ?? '',
    isSystemAdmin: row.subject_kind === 'user' && row.is_system_admin === true,
    permissions: await permissionsOf(db, row),
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
export function registerAccessControl(
  app: FastifyInstance,
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
    if (!permission || permission === 'public') return;
    const token = tokenOf(request);
    const principal = token ? await resolve(token) : null;
    if (!principal) return replyError(reply, request, 'UNAUTHENTICATED');
    request.principal = developmentDb ? await actingPrincipal(developmentDb, principal, request.headers.tenant) : principal;
    if (request.stationId) request.principal.stationId = request.stationId;
    if (permission !== 'authenticated' && !hasPermission(request.principal, permission)) return replyError(reply, request, 'FORBIDDEN');
  });
}
