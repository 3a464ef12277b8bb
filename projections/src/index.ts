import type { AnyProjection } from './projection.ts';
import { tenantsProjection } from './tenant/tenants.ts';
import { usersProjection } from './user/users.ts';
import { groupsProjection } from './group/groups.ts';
import { rolesProjection } from './role/roles.ts';
import { menusProjection } from './menu/menus.ts';
import { appsProjection } from './app/apps.ts';
import { dictsProjection } from './dict/dicts.ts';
import { settingsProjection } from './settings/settings.ts';
import { oplogProjection } from './oplog/oplog.ts';
import { productsProjection } from './device/products.ts';
import { devicesProjection } from './device/devices.ts';
import { mqttConfigsProjection, templatesProjection } from './device/templates.ts';
import { alarmRulesProjection } from './alarm/rules.ts';
import { alarmsProjection } from './alarm/alarms.ts';
import { notifyProjection, notifySettingsProjection } from './alarm/notify.ts';
import { forwardProjection, mqttAuthProjection } from './forward/forward.ts';
import { statTasksProjection } from './stat/tasks.ts';
import { reportsProjection } from './report/reports.ts';
import { marketProjection } from './market/market.ts';
import { priceSchedulesProjection } from './power/price-schedules.ts';
import { fieldConfigProjection } from './field/field-config.ts';
import { ruleChainsProjection } from './rule/chains.ts';
import { filesProjection } from './file/files.ts';
import { otaTasksProjection } from './ota/tasks.ts';
import { restartTasksProjection } from './restart/tasks.ts';
import { ptProjection } from './pt/pt.ts';
import { camerasProjection } from './video/cameras.ts';
import { diagramsProjection } from './diagram/diagrams.ts';
import { screensProjection } from './screen/screens.ts';
import { topoElementsProjection } from './diagram/topo-elements.ts';
import { sceneLogProjection } from './scene/log.ts';
import { scenesProjection } from './scene/scenes.ts';
import { ruleDebugProjection } from './rule/debug.ts';

export * from './projection.ts';
export * from './runner.ts';
export { createAlarmReactor, type AlarmReactor } from './alarm/reactor.ts';
export { alarmLiveHooks } from './alarm/live.ts';
export { otaLiveHooks } from './ota/live.ts';
export { notificationReactor, type NotificationCaps } from './alarm/notifications.ts';
export { statResultsReactor } from './stat/results.ts';
export { notifyInboxIndex, notifyInboxSchema, notifyRateSchema, notifyRecordsSchema, readByUser } from './alarm/outbox.ts';

/** Every read model the platform keeps, by name (`npm run projections -- rebuild NAME`). */
export const projections: AnyProjection[] = [
  tenantsProjection,
  usersProjection,
  groupsProjection,
  rolesProjection,
  menusProjection,
  appsProjection,
  dictsProjection,
  settingsProjection,
  oplogProjection,
  productsProjection,
  devicesProjection,
  templatesProjection,
  mqttConfigsProjection,
  alarmRulesProjection,
  alarmsProjection,
  notifyProjection,
  notifySettingsProjection,
  forwardProjection,
  mqttAuthProjection,
  statTasksProjection,
  otaTasksProjection,
  restartTasksProjection,
  reportsProjection,
  marketProjection,
  fieldConfigProjection,
  ruleChainsProjection,
  filesProjection,
  ptProjection,
  camerasProjection,
  diagramsProjection,
  screensProjection,
  topoElementsProjection,
  scenesProjection,
  sceneLogProjection,
  ruleDebugProjection,
  priceSchedulesProjection,
];
