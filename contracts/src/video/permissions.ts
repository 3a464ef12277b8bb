/** Permission strings of the camera routes: buttons and interfaces under Operation center → Video surveillance. */
export const videoPerm = {
  list: 'operation:video:list',
  add: 'operation:video:add',
  edit: 'operation:video:edit',
  delete: 'operation:video:delete',
} as const;
