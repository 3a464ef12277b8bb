/** Permission strings of the data big screen designer (operation center, issue 20), under the bigScreen menu entry. */
export const screenPerm = {
  list: 'operation:bigScreen:list',
  add: 'operation:bigScreen:add',
  edit: 'operation:bigScreen:edit',
  delete: 'operation:bigScreen:delete',
  share: 'operation:bigScreen:share',
} as const;
