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

export function hasPermission(principal: Principal, permission: string): boolean {
  if (permission.startsWith('platform:') && !principal.isSystemAdmin) return false;
  return principal.permissions.has('*') || principal.permissions.has(permission);
}
