/** Permission strings of the statistic-task routes: buttons and interfaces under Data analysis → Statistic tasks. */
export const statPerm = {
  list: 'analysis:task:list',
  add: 'analysis:task:add',
  edit: 'analysis:task:edit',
  delete: 'analysis:task:delete',
  enable: 'analysis:task:enable',
  result: 'analysis:task:result',
} as const;
