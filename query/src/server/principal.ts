import type { FastifyRequest } from 'fastify';

/** The caller behind a request, resolved from its token. Tenant comes from here, never from the request. */
export interface Principal {
  kind: 'user' | 'app';
  id: string;
  tenantId: string;
  username: string;
  isSystemAdmin: boolean;
  permissions: ReadonlySet<string>;
  /** The current group (`stationId`): narrows device-bound data to this group's subtree. */
  stationId: string | null;
  tokenHash: string;
}

/**
 * What a route needs: 'public' (no login), 'authenticated' (any logged-in caller) or a permission string.
 * Permissions starting with `platform:` belong to the system administrator only.
 */
export type RoutePermission = 'public' | 'authenticated' | `${string}:${string}`;

declare module 'fastify' {
  interface FastifyContextConfig {
    permission?: RoutePermission;
  }
  interface FastifyRequest {
    principal: Principal | null;
    lang: 'zh' | 'en';
    /** The `stationId` of the request (query or header), before the route sees the query. */
    stationId: string | null;
  }
}

export function hasPermission(principal: Principal, permission: string): boolean {
  if (permission.startsWith('platform:') && !principal.isSystemAdmin) return false;
  return principal.permissions.has('*') || principal.permissions.has(permission);
}

/** The principal of a route that declared a permission: present by construction. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route reached without a principal: check its permission declaration');
  return request.principal;
}
