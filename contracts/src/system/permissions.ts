/** Permission strings of the system screens of issue 19: tasks, resources, MQTT. */
export const systemOpsPerm = {
  resourceList: 'system:resource:list',
  taskList: 'system:task:list',
  taskRunNow: 'system:task:runNow',
} as const;
