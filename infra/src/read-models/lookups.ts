import type { Lookups } from '@iot/contracts/ports/lookups.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { appById, appByKey, appNames } from '@iot/projections/app/read.ts';
import { anyNotifyRecordOf, contactsOfTenant, notifyTemplateExists, notifyTemplateInUse } from '@iot/projections/alarm/read.ts';
import { forwardServerInUse } from '@iot/projections/forward/read.ts';
import { statTaskById } from '@iot/projections/stat/read.ts';
import { fileBytesOfTenant, fileById } from '@iot/projections/file/read.ts';
import { fileInUse } from '@iot/projections/file/in-use.ts';
import {
  anyDeviceInGroup,
  deviceIdsOfProduct,
  deviceIsOfProduct,
  devicesForRollout,
  devicesOfTenant,
  gatewayHasDevices,
  nodeTypeOf,
  productHasDevices,
  thingModelOf,
  devicesBySn,
  productNodeType,
  productsForDevices,
} from '@iot/projections/device/read.ts';
import { diagramsUsingTopoElement, topoElementNames } from '@iot/projections/diagram/read.ts';
import { otaTasksOfDevice } from '@iot/projections/ota/read.ts';
import { dictCodeTaken, dictCodes } from '@iot/projections/dict/read.ts';
import { groupAncestry, groupById, groupHasChildren, groupsOf, groupSubtree } from '@iot/projections/group/read.ts';
import { menuHasChildren, menusByIds } from '@iot/projections/menu/read.ts';
import { permissionsOfRoles, roleNameTaken, roleNames, rolesByIds } from '@iot/projections/role/read.ts';
import {
  approvedTenants,
  isTenantActive,
  openRegistrationNamed,
  pendingRegistrations,
  tenantNameInUse,
} from '@iot/projections/tenant/read.ts';
import {
  anyUserInGroup,
  anyUserWithRole,
  userByAccount,
  userByIdAnyTenant,
  userContacts,
  userPermissions,
} from '@iot/projections/user/read.ts';

/** The Lookups port answered by the projections' read modules over the read models' database. */
export const createLookups = (db: Sql): Lookups => ({
  groupExists: async (tenantId, groupId) => (await groupById(db, tenantId, groupId)) !== null,
  groupSubtree: (tenantId, groupId) => groupSubtree(db, tenantId, groupId),
  groupAncestry: (tenantId, groupId) => groupAncestry(db, tenantId, groupId),
  groupHasChildren: (tenantId, groupId) => groupHasChildren(db, tenantId, groupId),
  groupHasMembers: async (tenantId, groupId) =>
    (await anyUserInGroup(db, tenantId, groupId)) || (await anyDeviceInGroup(db, tenantId, groupId)),

  devicesOfTenant: (tenantId, deviceIds) => devicesOfTenant(db, tenantId, deviceIds),
  deviceIsOfProduct: (tenantId, deviceId, productId) => deviceIsOfProduct(db, tenantId, deviceId, productId),

  contactsOfTenant: (tenantId, contactIds) => contactsOfTenant(db, tenantId, contactIds),
  notifyTemplateExists: (tenantId, templateId) => notifyTemplateExists(db, tenantId, templateId),
  notifyTemplateInUse: (tenantId, templateId) => notifyTemplateInUse(db, tenantId, templateId),
  forwardServerInUse: (tenantId, serverId) => forwardServerInUse(db, tenantId, serverId),
  anyNotifyRecordOf: (tenantId, recordIds) => anyNotifyRecordOf(db, tenantId, recordIds),

  userById: (userId) => userByIdAnyTenant(db, userId),
  userByAccount: (account) => userByAccount(db, account),
  userPermissions: (userId) => userPermissions(db, userId),
  userContacts: async () => (await userContacts(db)).map(({ createdAt, ...user }) => ({ ...user, since: createdAt })),

  rolesOfTenant: async (tenantId, roleIds) => (await rolesByIds(db, tenantId, roleIds)).map((r) => r.id),
  permissionsOfRoles: (tenantId, roleIds) => permissionsOfRoles(db, tenantId, roleIds),
  roleNameTaken: (tenantId, name, exceptRoleId) => roleNameTaken(db, tenantId, name, exceptRoleId),
  roleInUse: (tenantId, roleId) => anyUserWithRole(db, tenantId, roleId),
  roleNames: () => roleNames(db),

  menusByIds: (menuIds) => menusByIds(db, menuIds),
  menuHasChildren: (menuId) => menuHasChildren(db, menuId),

  appById: (tenantId, appId) => appById(db, tenantId, appId),
  appByKey: (appKey) => appByKey(db, appKey),
  appNames: () => appNames(db),

  dictCodeTaken: (tenantId, code, exceptTypeId) => dictCodeTaken(db, tenantId, code, exceptTypeId),
  dictCodes: () => dictCodes(db),

  isTenantActive: (tenantId) => isTenantActive(db, tenantId),
  openRegistrationNamed: (name) => openRegistrationNamed(db, name),
  tenantNameInUse: (name) => tenantNameInUse(db, name),
  approvedTenants: () => approvedTenants(db),
  pendingRegistrations: async () =>
    (await pendingRegistrations(db)).map(({ applyTime, ...registration }) => ({ ...registration, since: applyTime })),

  // Devices created in bulk and their broker accounts.
  productsForDevices: (tenantId) => productsForDevices(db, tenantId),
  groupNamesOfTenant: async (tenantId) => (await groupsOf(db, tenantId, {})).map(({ id, name }) => ({ id, name })),
  devicesBySn: (tenantId, sns) => devicesBySn(db, tenantId, sns),
  productNodeType: (tenantId, productId) => productNodeType(db, tenantId, productId),
  deviceNodeType: (tenantId, deviceId) => nodeTypeOf(db, tenantId, deviceId),
  gatewayHasDevices: (tenantId, gatewayId) => gatewayHasDevices(db, tenantId, gatewayId),
  productHasDevices: (tenantId, productId) => productHasDevices(db, tenantId, productId),
  deviceIdsOfProduct: (tenantId, productId, limit) => deviceIdsOfProduct(db, tenantId, productId, limit),
  thingModelOf: (tenantId, productId, modelVersion) => thingModelOf(db, tenantId, productId, modelVersion),

  // Uploaded files.
  fileById: async (tenantId, fileId) => {
    const file = await fileById(db, tenantId, fileId);
    if (!file) return null;
    const { declaration: _d, uploaderId: _u, uploader: _n, createdAt: _c, ...stored } = file;
    return stored;
  },
  fileInUse: (tenantId, fileId) => fileInUse(db, tenantId, fileId),
  fileBytesOfTenant: (tenantId) => fileBytesOfTenant(db, tenantId),
  devicesForRollout: async (tenantId, target, limit) =>
    devicesForRollout(
      db,
      tenantId,
      target.kind === 'product'
        ? { productId: target.productId, version: target.version }
        : target.kind === 'group'
          ? { groupIds: await groupSubtree(db, tenantId, target.groupId) }
          : { deviceIds: target.deviceIds },
      limit,
    ),
  otaTasksOfDevice: (tenantId, deviceId, statuses) => otaTasksOfDevice(db, tenantId, deviceId, statuses),
  groupTypeOf: async (tenantId, groupId) => {
    const group = await groupById(db, tenantId, groupId);
    return group ? group.type : undefined;
  },
  statTasksOfTenant: async (tenantId, taskIds) =>
    (await Promise.all(taskIds.map((id) => statTaskById(db, tenantId, id)))).flatMap((task) => (task ? [task.id] : [])),
  diagramsUsingTopoElement: (tenantId, elementId) => diagramsUsingTopoElement(db, tenantId, elementId),
  topoElementNames: () => topoElementNames(db),
});
