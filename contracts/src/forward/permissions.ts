/** Permission strings of the forwarding routes, each a built-in button or interface under its screen (menu catalogue). */
export const forwardPerm = {
  mqttServerList: 'forward:mqttServer:list',
  mqttServerAdd: 'forward:mqttServer:add',
  mqttServerEdit: 'forward:mqttServer:edit',
  mqttServerDelete: 'forward:mqttServer:delete',
  mqttServerTest: 'forward:mqttServer:test',
  httpServerList: 'forward:httpServer:list',
  httpServerAdd: 'forward:httpServer:add',
  httpServerEdit: 'forward:httpServer:edit',
  httpServerDelete: 'forward:httpServer:delete',
  httpServerTest: 'forward:httpServer:test',
  ruleList: 'forward:rules:list',
  ruleAdd: 'forward:rules:add',
  ruleEdit: 'forward:rules:edit',
  ruleDelete: 'forward:rules:delete',
  deadList: 'forward:rules:dead',
  deadRetry: 'forward:rules:retry',
  deadDelete: 'forward:rules:deadDelete',
  mqttUserList: 'forward:mqttUser:list',
  mqttUserAdd: 'forward:mqttUser:add',
  mqttUserEdit: 'forward:mqttUser:edit',
  mqttUserDelete: 'forward:mqttUser:delete',
  mqttTopicList: 'forward:mqttTopic:list',
  mqttTopicAdd: 'forward:mqttTopic:add',
  mqttTopicEdit: 'forward:mqttTopic:edit',
  mqttTopicDelete: 'forward:mqttTopic:delete',
} as const;

/** A forwarding server's name is unique per tenant and type: the claim's scope, its key the name. */
export const forwardServerNameScope = (tenantId: string, type: 'mqtt' | 'http') => `forwardServer:name:${type}:${tenantId}`;
/** MQTT usernames are unique on the platform's broker (they log in without a tenant): one scope for all tenants. */
export const mqttUsernameScope = 'mqttUser:username';
