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
 * Permissions starting with `platform:` belong to the system administrator only. 'brokerSecret': the caller is
 * the MQTT broker (EMQX's HTTP hooks), known by the shared `MQTT_HOOK_SECRET` in a header, never by a user's token.
 */
export type RoutePermission = 'public' | 'brokerSecret' | 'authenticated' | `${string}:${string}`;

export function hasPermission(principal: Principal, permission: string): boolean {
  if (permission.startsWith('platform:') && !principal.isSystemAdmin) return false;
  return principal.permissions.has('*') || principal.permissions.has(permission);
}

/** What a principal's permissions follow from, as its user or app row shows it. */
export interface PrincipalGrants {
  kind: 'user' | 'app';
  isSystemAdmin: boolean;
  isTenantAdmin: boolean;
  /** An app's OAuth scope. */
  scope?: readonly string[] | null;
}

/** Whether a principal's permissions are the ones its roles grant: only then does the caller need to look them up. */
export const grantedByRoles = (grants: PrincipalGrants): boolean =>
  grants.kind === 'user' && !grants.isSystemAdmin && !grants.isTenantAdmin;

/**
 * Permissions of a principal: the system administrator holds everything ('*' with `platform:`), a tenant's
 * administrator everything but `platform:` (hasPermission keeps those for the system administrator), an app
 * exactly its scope, anyone else `rolePermissions`, the permissions of the menus their roles grant.
 */
export function principalPermissions(grants: PrincipalGrants, rolePermissions: Iterable<string>): Set<string> {
  if (grants.kind === 'app') return new Set((grants.scope ?? []).filter((p) => !p.startsWith('platform:')));
  if (grants.isSystemAdmin || grants.isTenantAdmin) return new Set(['*']);
  return new Set(rolePermissions);
}

/** The tenant's root user: its administrator (or the system administrator), who holds every permission of the tenant. */
export const isRootUser = (principal: Pick<Principal, 'kind' | 'permissions'>): boolean =>
  principal.kind === 'user' && principal.permissions.has('*');
