/** Permission strings of the fault-alarm routes, each a built-in button or interface under its screen. */
export const alarmPerm = {
  alarmList: 'alarm:monitor:list',
  alarmAck: 'alarm:monitor:ack',
  alarmProcess: 'alarm:monitor:process',
  alarmClear: 'alarm:monitor:clear',
  alarmAdd: 'alarm:monitor:add',
  alarmExport: 'alarm:monitor:export',
  alarmTicket: 'alarm:monitor:ticket',
  ruleList: 'alarm:settings:list',
  ruleAdd: 'alarm:settings:add',
  ruleEdit: 'alarm:settings:edit',
  ruleDelete: 'alarm:settings:delete',
  contactList: 'alarm:contacts:list',
  contactAdd: 'alarm:contacts:add',
  contactEdit: 'alarm:contacts:edit',
  contactDelete: 'alarm:contacts:delete',
  templateList: 'alarm:notifyTemplates:list',
  templateAdd: 'alarm:notifyTemplates:add',
  templateEdit: 'alarm:notifyTemplates:edit',
  templateDelete: 'alarm:notifyTemplates:delete',
  configList: 'alarm:notifyConfigs:list',
  configAdd: 'alarm:notifyConfigs:add',
  configEdit: 'alarm:notifyConfigs:edit',
  configDelete: 'alarm:notifyConfigs:delete',
  recordList: 'alarm:notifyRecords:list',
  recordRead: 'alarm:notifyRecords:read',
  recordRetry: 'alarm:notifyRecords:retry',
  settingsList: 'alarm:notifySettings:list',
  settingsEdit: 'alarm:notifySettings:edit',
} as const;

/** At most one active alarm per (device, rule): the claim's scope, its key `<deviceId>:<ruleId>`, owned by the alarm. */
export const activeAlarmScope = (tenantId: string) => `alarm:active:${tenantId}`;
export const notifyTemplateCodeScope = (tenantId: string) => `notifyTemplate:code:${tenantId}`;
