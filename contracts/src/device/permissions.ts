/**
 * Permission strings of the device-management routes (`area:screen:action`), each a built-in button or
 * interface of the menu catalogue under its screen, so that granting the entry grants the routes.
 */
export const devicePerm = {
  productList: 'device:product:list',
  productAdd: 'device:product:add',
  productEdit: 'device:product:edit',
  productDelete: 'device:product:delete',
  productPublish: 'device:product:publish',
  deviceList: 'device:device:list',
  deviceAdd: 'device:device:add',
  deviceEdit: 'device:device:edit',
  deviceDelete: 'device:device:delete',
  deviceSecret: 'device:device:secret',
  deviceImport: 'device:device:import',
  deviceExport: 'device:device:export',
  deviceHistory: 'device:device:history',
  deviceCommand: 'device:device:command',
  gatewayList: 'device:gateway:list',
  gatewayEdit: 'device:gateway:edit',
  templateList: 'device:template:list',
  templateAdd: 'device:template:add',
  templateEdit: 'device:template:edit',
  templateDelete: 'device:template:delete',
  templateApply: 'device:template:apply',
  mqttConfigList: 'device:mqttConfig:list',
  mqttConfigAdd: 'device:mqttConfig:add',
  mqttConfigEdit: 'device:mqttConfig:edit',
  mqttConfigDelete: 'device:mqttConfig:delete',
  auditList: 'system:audit:list',
  auditExport: 'system:audit:export',
} as const;
export type DevicePermission = (typeof devicePerm)[keyof typeof devicePerm];

/** Where a device's SN is claimed: platform-wide, since a device logs in with its SN alone. */
export const deviceSnScope = 'device:sn';
export const productCodeScope = (tenantId: string) => `product:code:${tenantId}`;
