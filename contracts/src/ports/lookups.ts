/** Read models whose rows belong to one tenant. */
export type TenantTable = 'rm_users' | 'rm_roles' | 'rm_groups' | 'rm_devices' | 'rm_products' | 'rm_templates';

/**
 * Questions the write side asks of the read models, with one home each (query/src/shared/lookups.ts),
 * bound by infra/ so that command/ never imports query/.
 */
export interface Lookups {
  /** Refuses (NOT_FOUND, naming `field` when given) an id that is not a row of the tenant's. */
  assertOwnRow(table: TenantTable, id: string, tenantId: string, field?: string): Promise<void>;
  /** The ids of a group and every group below it, in one tenant: the data scope of a `stationId`. */
  groupSubtree(tenantId: string, groupId: string): Promise<string[]>;
  /** A group and its ancestors up to the root, in one tenant. */
  groupAncestry(tenantId: string, groupId: string): Promise<string[]>;
  /** Permissions a user's roles grant: the union of their menus' permissions. */
  rolePermissions(userId: string): Promise<Set<string>>;
  /** Whether a tenant may act: approved and not stopped (login, every token check, device authentication). */
  isTenantActive(tenantId: string): Promise<boolean>;
}
