import { routes } from '@iot/contracts';

/**
 * Paths the generic list and record screens read and write, taken from the route table (never typed by
 * hand): a path that leaves the table fails the build here. Calls with a body go through `callRoute`.
 */
export const endpoints = {
  login: routes['auth.login'].path,
  logout: routes['auth.logout'].path,
  currentUser: routes['auth.currentUser'].path,
  registerCode: routes['tenant.sendCode'].path,
  register: routes['tenant.register'].path,
  approve: routes['tenant.approve'].path,
  reject: routes['tenant.reject'].path,
  tenantStop: routes['tenant.stop'].path,
  tenantStart: routes['tenant.start'].path,
  user: routes['user.list'].path,
  userCheck: routes['user.check'].path,
  userStatus: routes['user.status'].path,
  profile: routes['user.profile'].path,
  password: routes['user.changePassword'].path,
  passwordReset: routes['user.resetPassword'].path,
  group: routes['group.tree'].path,
  role: routes['role.list'].path,
  roleMenu: routes['role.grant'].path,
  roleCheck: routes['role.check'].path,
  menu: routes['menu.tree'].path,
  menuAll: routes['menu.list'].path,
  menuOrder: routes['menu.reorder'].path,
  app: routes['app.list'].path,
  appSecret: routes['app.rotateSecret'].path,
  dict: routes['dict.list'].path,
  dictItems: routes['dict.items'].path,
  settings: routes['settings.get'].path,
  settingsLogo: routes['settings.uploadLogo'].path,
  logo: routes['settings.userLogo'].path,
  log: routes['oplog.list'].path,
} as const;
