import type { NodeType } from '../device/model.ts';
import type { ThingFunction } from '../device/thing-model.ts';
import type { EnabledStatus } from '../identity/common.ts';
import type { UserStatus } from '../identity/user.ts';
import type { StoredFile } from '../file/model.ts';
import type { FileTaskStatus, OtaTarget } from '../ota/model.ts';

/** A user as the write side asks about them: who, in which tenant, what they log in with and what they hold. */
export interface UserAccount {
  id: string;
  tenantId: string;
  username: string;
  email: string | null;
  phone: string | null;
  status: UserStatus;
  isSystemAdmin: boolean;
  isTenantAdmin: boolean;
  homePage: string | null;
  roleIds: string[];
}

/** An app as its token and its managers are checked: its key, owner, status and OAuth scope (never its secret). */
export interface AppAccount {
  id: string;
  tenantId: string;
  ownerId: string;
  appKey: string;
  status: EnabledStatus;
  scope: string[];
}

/** A name some row holds in a tenant: what claims taken before claims existed are made from. */
export interface NamedRow {
  id: string;
  tenantId: string;
  name: string;
}

/** Someone's contacts and since when: the earliest of two holding one keeps it when claims are first taken. */
export interface ContactsOf {
  /** A user's id, or a pending registration's tenant id. */
  id: string;
  email: string | null;
  phone: string | null;
  since: Date;
}

/**
 * Questions the write side (command/, ingest/, the HTTP adapter) asks of the read models, each by what it
 * asks, never by table: the projections' read modules answer them (projections/src/<capability>/read.ts),
 * bound by infra/ so that command/ never imports them.
 */
export interface Lookups {
  /** Whether the group is one of the tenant's. */
  groupExists(tenantId: string, groupId: string): Promise<boolean>;
  /** The ids of a group and every group below it, in one tenant: the data scope of a `stationId`. */
  groupSubtree(tenantId: string, groupId: string): Promise<string[]>;
  /** A group and its ancestors up to the root, in one tenant. */
  groupAncestry(tenantId: string, groupId: string): Promise<string[]>;
  /** Whether a group of the tenant has a group below it. */
  groupHasChildren(tenantId: string, groupId: string): Promise<boolean>;
  /** Whether users or devices of the tenant are in the group. */
  groupHasMembers(tenantId: string, groupId: string): Promise<boolean>;

  /** Those of `deviceIds` that are devices of the tenant. */
  devicesOfTenant(tenantId: string, deviceIds: string[]): Promise<string[]>;
  /** Whether the device is one of the tenant's, of this product. */
  deviceIsOfProduct(tenantId: string, deviceId: string, productId: string): Promise<boolean>;

  /** Those of `contactIds` that are alarm contacts of the tenant. */
  contactsOfTenant(tenantId: string, contactIds: string[]): Promise<string[]>;
  /** Whether the notification template is one of the tenant's. */
  notifyTemplateExists(tenantId: string, templateId: string): Promise<boolean>;
  /** Whether a notification configuration of the tenant sends through the template. */
  notifyTemplateInUse(tenantId: string, templateId: string): Promise<boolean>;
  /** Whether any of the notification records is one of the tenant's. */
  anyNotifyRecordOf(tenantId: string, recordIds: string[]): Promise<boolean>;
  /** Whether a forwarding rule of the tenant sends to the server. */
  forwardServerInUse(tenantId: string, serverId: string): Promise<boolean>;

  /** A user by id, whichever tenant holds them. */
  userById(userId: string): Promise<UserAccount | null>;
  /** The user a login names, platform-wide: by username or email, any case; a username wins over another's email. */
  userByAccount(account: string): Promise<UserAccount | null>;
  /** Permissions a user's roles grant: the union of their menus' permissions. */
  userPermissions(userId: string): Promise<Set<string>>;
  /** Every user's contacts, oldest first. */
  userContacts(): Promise<Array<ContactsOf & { username: string }>>;

  /** Those of `roleIds` that are roles of the tenant. */
  rolesOfTenant(tenantId: string, roleIds: string[]): Promise<string[]>;
  /** The permissions the tenant's roles among `roleIds` grant, each once. */
  permissionsOfRoles(tenantId: string, roleIds: string[]): Promise<string[]>;
  /** Whether another role of the tenant has the name, whatever its case (a role no claim covers: the built-in ones). */
  roleNameTaken(tenantId: string, name: string, exceptRoleId: string): Promise<boolean>;
  /** Whether any user of the tenant holds the role. */
  roleInUse(tenantId: string, roleId: string): Promise<boolean>;
  /** Every role's name. */
  roleNames(): Promise<NamedRow[]>;

  /** Those of `menuIds` that are entries of the catalogue, with their parent and permission. */
  menusByIds(menuIds: string[]): Promise<Array<{ id: string; parentId: string | null; permission: string | null }>>;
  /** Whether an entry of the catalogue has another below it. */
  menuHasChildren(menuId: string): Promise<boolean>;

  /** An app of the tenant, by id. */
  appById(tenantId: string, appId: string): Promise<AppAccount | null>;
  /** The app a key names, platform-wide. */
  appByKey(appKey: string): Promise<AppAccount | null>;
  /** Every app's name, oldest first. */
  appNames(): Promise<NamedRow[]>;

  /** Whether another dictionary type of the tenant has the code (a type made before claims existed). */
  dictCodeTaken(tenantId: string, code: string, exceptTypeId: string): Promise<boolean>;
  /** Every dictionary type's code. */
  dictCodes(): Promise<Array<{ id: string; tenantId: string; code: string }>>;

  /** Whether a tenant may act: approved and not stopped (login, every token check, device authentication). */
  isTenantActive(tenantId: string): Promise<boolean>;
  /** The latest registration under this name (any case) still under review or refused. */
  openRegistrationNamed(name: string): Promise<{ id: string; status: 'underReview' | 'rejected' } | null>;
  /** Whether a tenant that is not refused has the name, whatever its case. */
  tenantNameInUse(name: string): Promise<boolean>;
  /** Tenants once approved (stopped ones too), with their administrator. */
  approvedTenants(): Promise<Array<{ id: string; adminUserId: string | null }>>;
  /** Registrations under review with their contacts, oldest first. */
  pendingRegistrations(): Promise<ContactsOf[]>;

  // Devices created in bulk and their broker accounts (issue 18: import, demo fleet, broker secrets).
  /** The tenant's products with what a device is created from: its node type and latest published model version. */
  productsForDevices(
    tenantId: string,
  ): Promise<Array<{ id: string; code: string; name: string; nodeType: NodeType; modelVersion: number }>>;
  /** The tenant's groups, by id and name. */
  groupNamesOfTenant(tenantId: string): Promise<Array<{ id: string; name: string }>>;
  /** The tenant's devices among these SNs, with their node type. */
  devicesBySn(tenantId: string, sns: string[]): Promise<Array<{ id: string; sn: string; nodeType: NodeType }>>;
  /** The node type of a product of the tenant (null: no such product). */
  productNodeType(tenantId: string, productId: string): Promise<NodeType | null>;
  // ---------------------------------------------------------------- devices, gateways and products (projections/src/device/)
  /** How a device of the tenant reaches the platform (null: no such device): what a gateway id is checked by. */
  deviceNodeType(tenantId: string, deviceId: string): Promise<NodeType | null>;
  /** Whether any device of the tenant is behind the gateway. */
  gatewayHasDevices(tenantId: string, gatewayId: string): Promise<boolean>;
  /** Whether any device of the tenant is of the product. */
  productHasDevices(tenantId: string, productId: string): Promise<boolean>;
  /** The ids of the tenant's devices of a product, at most `limit`, in id order. */
  deviceIdsOfProduct(tenantId: string, productId: string, limit: number): Promise<string[]>;
  /** The thing model a device bound to `modelVersion` of the product reports against: that version, or the draft before any. */
  thingModelOf(tenantId: string, productId: string, modelVersion: number): Promise<ThingFunction[]>;
  // ---------------------------------------------------------------- uploaded files (projections/src/file/)
  /** An uploaded file of the tenant (null: none, or another tenant's). */
  fileById(tenantId: string, fileId: string): Promise<StoredFile | null>;
  /** Whether a running task (an OTA or configuration rollout, ...) sends the file: it cannot be deleted then. */
  fileInUse(tenantId: string, fileId: string): Promise<boolean>;
  /** The bytes the tenant's files take: what its quota is checked against. */
  fileBytesOfTenant(tenantId: string): Promise<number>;
  // ---------------------------------------------------------------- rollouts (issue 21)
  /** The tenant's devices a rollout targets (a product at a version, a group's subtree, a list), at most `limit`, by SN. */
  devicesForRollout(
    tenantId: string,
    target: OtaTarget,
    limit: number,
  ): Promise<Array<{ deviceId: string; sn: string; version: string | null }>>;
  /** The rollouts a device is in with one of these statuses, oldest first (what its going offline pauses, or its return resumes). */
  otaTasksOfDevice(tenantId: string, deviceId: string, statuses: readonly FileTaskStatus[]): Promise<string[]>;
  /** The type of a group of the tenant (null when it has none), or undefined when it is no group of the tenant. */
  groupTypeOf(tenantId: string, groupId: string): Promise<string | null | undefined>;
  /** Those of `taskIds` that are statistic tasks of the tenant (a big screen's widgets bind only the tenant's own). */
  statTasksOfTenant(tenantId: string, taskIds: string[]): Promise<string[]>;
  // ---------------------------------------------------------------- configuration diagrams (projections/src/diagram/)
  /** The names of the tenant's diagrams that place a topo element (none: it may be deleted). */
  diagramsUsingTopoElement(tenantId: string, elementId: string): Promise<string[]>;
  /** Every topo element's name, oldest first: what name claims taken before claims existed are made from. */
  topoElementNames(): Promise<NamedRow[]>;
}
