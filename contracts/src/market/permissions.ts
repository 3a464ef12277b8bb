/** Permission strings of the data market: buttons under Operation center → Data market, and the data endpoint apps call. */
export const marketPerm = {
  list: 'operation:dataMarket:list',
  add: 'operation:dataMarket:add',
  edit: 'operation:dataMarket:edit',
  delete: 'operation:dataMarket:delete',
  subscribe: 'operation:dataMarket:subscribe',
  revoke: 'operation:dataMarket:revoke',
  /** What an app's scope holds to read a data set it subscribes to. */
  data: 'operation:dataMarket:data',
} as const;
