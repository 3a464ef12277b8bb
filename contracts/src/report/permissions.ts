/** Permission strings of the report routes: buttons and interfaces under Data analysis → Report customization. */
export const reportPerm = {
  list: 'analysis:report:list',
  add: 'analysis:report:add',
  edit: 'analysis:report:edit',
  delete: 'analysis:report:delete',
  export: 'analysis:report:export',
} as const;
