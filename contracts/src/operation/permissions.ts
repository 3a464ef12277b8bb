/** Permission strings of the data map, the data big screen and the configuration diagrams (operation center, issue 20). */
export const operationPerm = {
  dataMapList: 'operation:dataMap:list',
  bigScreenList: 'operation:bigScreen:list',
  sceneList: 'operation:scene:list',
  sceneAdd: 'operation:scene:add',
  sceneEdit: 'operation:scene:edit',
  sceneDelete: 'operation:scene:delete',
  /** Add, edit and delete the tenant's topo elements (the diagram palette's own pieces). */
  sceneElement: 'operation:scene:element',
} as const;
