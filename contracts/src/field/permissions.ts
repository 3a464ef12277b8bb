/** Permission strings of the field configuration routes: buttons and interfaces under Operation center → Field configuration. */
export const fieldPerm = {
  list: 'operation:fieldConfig:list',
  edit: 'operation:fieldConfig:edit',
  field: 'operation:fieldConfig:field',
} as const;
