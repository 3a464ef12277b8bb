/**
 * The read models of the platform, by the name of the projection that keeps each. A route names the
 * ones its answer reads: a write waits for them (read your writes), and only for them.
 */
export const readModels = [
  'tenants',
  'users',
  'groups',
  'roles',
  'menus',
  'apps',
  'dicts',
  'settings',
  'oplog',
  'products',
  'devices',
  'templates',
  'mqttConfigs',
  'alarmRules',
  'alarms',
  'notify',
  'notifySettings',
  'forward',
  'mqttAuth',
  'statTasks',
  'ruleChains',
  'files',
  'otaTasks',
  'restartTasks',
  'pt',
  'cameras',
  'scenes',
  'sceneLog',
  'ruleDebug',
  'reports',
  'market',
  'fieldConfig',
  'diagrams',
  'screens',
  'topoElements',
  'priceSchedules',
  // A workflow is waited for first; the read models are then waited for at what it appended.
  'workflow-tenant-onboarding',
] as const;
export type ReadModel = (typeof readModels)[number];

export const isWorkflow = (model: ReadModel): boolean => model.startsWith('workflow-');
