/** Permission strings of the scene routes: buttons and interfaces under Scene configuration and the rule list (menu catalogue). */
export const scenePerm = {
  list: 'scene:linkage:list',
  add: 'scene:design:add',
  edit: 'scene:design:edit',
  delete: 'scene:linkage:delete',
  enable: 'scene:linkage:enable',
  invoke: 'scene:linkage:invoke',
  logList: 'scene:linkageLog:list',
  logExport: 'scene:linkageLog:export',
  ruleList: 'rule:list:list',
} as const;
