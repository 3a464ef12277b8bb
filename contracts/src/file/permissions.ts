/** Permission strings of the file routes: buttons and interfaces under System management → File management. */
export const filePerm = {
  list: 'system:file:list',
  upload: 'system:file:upload',
  download: 'system:file:download',
  delete: 'system:file:delete',
} as const;
