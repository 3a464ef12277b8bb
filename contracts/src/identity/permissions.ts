/**
 * Permission strings of the system-management routes (`area:thing:action`). Every one of them is a
 * built-in menu entry of type button or interface, so that granting a menu to a role grants its routes.
 * `platform:` permissions belong to the system administrator alone.
 */
export const perm = {
  userList: 'system:user:list',
  userAdd: 'system:user:add',
  userEdit: 'system:user:edit',
  userDelete: 'system:user:delete',
  userResetPassword: 'system:user:resetPwd',
  groupList: 'system:dept:list',
  groupAdd: 'system:dept:add',
  groupEdit: 'system:dept:edit',
  groupDelete: 'system:dept:delete',
  roleList: 'system:role:list',
  roleAdd: 'system:role:add',
  roleEdit: 'system:role:edit',
  roleDelete: 'system:role:delete',
  roleGrant: 'system:role:grant',
  menuList: 'system:menu:list',
  menuAdd: 'platform:menu:add',
  menuEdit: 'platform:menu:edit',
  menuDelete: 'platform:menu:delete',
  appList: 'system:app:list',
  appAdd: 'system:app:add',
  appEdit: 'system:app:edit',
  appDelete: 'system:app:delete',
  appSecret: 'system:app:secret',
  dictList: 'system:dict:list',
  dictAdd: 'system:dict:add',
  dictEdit: 'system:dict:edit',
  dictDelete: 'system:dict:delete',
  settingsView: 'system:settings:list',
  settingsEdit: 'system:settings:edit',
  logList: 'system:log:list',
  logExport: 'system:log:export',
  tenantList: 'platform:tenant:list',
  tenantAudit: 'platform:tenant:audit',
} as const;
export type Permission = (typeof perm)[keyof typeof perm];
