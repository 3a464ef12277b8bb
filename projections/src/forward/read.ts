import type {
  ForwardMessageType,
  ForwardServerType,
  MqttAccess,
  Page,
  PageQuery,
  forwardRuleSortable,
  forwardServerSortable,
  mqttAclSortable,
  mqttUserSortable,
} from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { EnabledStatus } from '@iot/contracts/identity/common.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';

// ---------------------------------------------------------------- servers (rm_forward_servers)

/** A forwarding server as the forward projection keeps it (never its password: only whether one is set). */
export type ForwardServerRecord = {
  id: string;
  tenantId: string;
  type: ForwardServerType;
  name: string;
  ip: string;
  port: number;
  url: string | null;
  username: string | null;
  clientId: string | null;
  tls: boolean;
  remark: string | null;
  hasPassword: boolean;
  /** Messages per POST (HTTP): 1 sends each on its own. */
  batchSize: number;
  createdAt: Date;
};
const SERVER = `id, tenant_id as "tenantId", type, name, ip, port, url, username, client_id as "clientId", tls, remark,
  has_password as "hasPassword", batch_size as "batchSize", created_at as "createdAt"`;
const serverSortBy = { createTime: 'created_at', name: 'lower(name)' } satisfies Record<(typeof forwardServerSortable)[number], string>;

/** A page of a tenant's servers of a type, those whose name holds `name`. */
export async function forwardServersPage(
  db: Sql,
  tenantId: string,
  filter: { type: ForwardServerType; name?: string },
  page: PageQuery,
): Promise<Page<ForwardServerRecord>> {
  const spec: ListSpec = {
    select: SERVER,
    from: 'rm_forward_servers',
    where: ['tenant_id = $1', 'type = $2'],
    params: [tenantId, filter.type],
    sortable: serverSortBy,
    defaultSort: 'created_at',
  };
  if (filter.name) spec.where.push(`name ilike ${param(spec.params, `%${filter.name}%`)}`);
  return pageRows<ForwardServerRecord>(db, page, spec);
}

/** A server by id, whichever tenant (the delivery worker's question; the tenant is on the outbox row). */
export async function forwardServerById(db: Sql, serverId: string): Promise<ForwardServerRecord | null> {
  return (await db.query<ForwardServerRecord>(`select ${SERVER} from rm_forward_servers where id = $1`, [serverId])).rows[0] ?? null;
}

/** Whether a forwarding rule of the tenant sends to the server. */
export async function forwardServerInUse(db: Sql, tenantId: string, serverId: string): Promise<boolean> {
  return (
    (await db.query('select 1 from rm_forward_rules where tenant_id = $1 and server_id = $2 limit 1', [tenantId, serverId])).rowCount > 0
  );
}

// ---------------------------------------------------------------- rules (rm_forward_rules)

export type ForwardRuleRecord = {
  id: string;
  tenantId: string;
  name: string;
  productIds: string[];
  deviceIds: string[];
  messageTypes: ForwardMessageType[];
  serverId: string;
  serverName: string | null;
  serverType: ForwardServerType | null;
  topic: string | null;
  payloadTemplate: string | null;
  status: EnabledStatus;
  createdAt: Date;
};
const RULE = `r.id, r.tenant_id as "tenantId", r.name, r.product_ids as "productIds", r.device_ids as "deviceIds",
  r.message_types as "messageTypes", r.server_id as "serverId", s.name as "serverName", s.type as "serverType", r.topic,
  r.payload_template as "payloadTemplate", r.status, r.created_at as "createdAt"`;
const ruleSortBy = { createTime: 'r.created_at', name: 'lower(r.name)' } satisfies Record<(typeof forwardRuleSortable)[number], string>;

/** A page of a tenant's forwarding rules, with their server's name and type. */
export async function forwardRulesPage(
  db: Sql,
  tenantId: string,
  filter: { name?: string },
  page: PageQuery,
): Promise<Page<ForwardRuleRecord>> {
  const spec: ListSpec = {
    select: RULE,
    from: 'rm_forward_rules r left join rm_forward_servers s on s.id = r.server_id',
    where: ['r.tenant_id = $1'],
    params: [tenantId],
    sortable: ruleSortBy,
    defaultSort: 'r.created_at',
  };
  if (filter.name) spec.where.push(`r.name ilike ${param(spec.params, `%${filter.name}%`)}`);
  return pageRows<ForwardRuleRecord>(db, page, spec);
}

/** Every enabled rule of every tenant, with its server's type: what the forwarding reactor matches messages against. */
export async function enabledForwardRules(db: Sql): Promise<ForwardRuleRecord[]> {
  return (
    await db.query<ForwardRuleRecord>(
      `select ${RULE} from rm_forward_rules r join rm_forward_servers s on s.id = r.server_id where r.status = 'enabled'`,
    )
  ).rows;
}

// ---------------------------------------------------------------- MQTT users and topic rules (rm_mqtt_users, rm_mqtt_acls)

export type MqttUserRecord = {
  id: string;
  tenantId: string;
  username: string;
  remark: string | null;
  createdAt: Date;
};
const USER = `id, tenant_id as "tenantId", username, remark, created_at as "createdAt"`;
const userSortBy = { createTime: 'created_at', username: 'lower(username)' } satisfies Record<(typeof mqttUserSortable)[number], string>;

export async function mqttUsersPage(
  db: Sql,
  tenantId: string,
  filter: { username?: string },
  page: PageQuery,
): Promise<Page<MqttUserRecord>> {
  const spec: ListSpec = {
    select: USER,
    from: 'rm_mqtt_users',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: userSortBy,
    defaultSort: 'created_at',
  };
  if (filter.username) spec.where.push(`username ilike ${param(spec.params, `%${filter.username}%`)}`);
  return pageRows<MqttUserRecord>(db, page, spec);
}

/** The MQTT user a broker login names (usernames are unique on the broker, any case). */
export async function mqttUserByUsername(db: Sql, username: string): Promise<MqttUserRecord | null> {
  return (
    (await db.query<MqttUserRecord>(`select ${USER} from rm_mqtt_users where lower(username) = lower($1)`, [username])).rows[0] ?? null
  );
}

/** An MQTT user of the tenant by id. */
export async function mqttUserById(db: Sql, tenantId: string, id: string): Promise<MqttUserRecord | null> {
  return (
    (await db.query<MqttUserRecord>(`select ${USER} from rm_mqtt_users where tenant_id = $1 and id = $2`, [tenantId, id])).rows[0] ?? null
  );
}

export type MqttAclRecord = {
  id: string;
  mqttUserId: string;
  username: string | null;
  topic: string;
  access: MqttAccess;
  createdAt: Date;
};
const aclSortBy = { createTime: 'a.created_at', topic: 'a.topic' } satisfies Record<(typeof mqttAclSortable)[number], string>;

export async function mqttAclsPage(
  db: Sql,
  tenantId: string,
  filter: { mqttUserId?: string; topic?: string },
  page: PageQuery,
): Promise<Page<MqttAclRecord>> {
  const spec: ListSpec = {
    select: `a.id, a.user_id as "mqttUserId", u.username, a.topic, a.access, a.created_at as "createdAt"`,
    from: 'rm_mqtt_acls a left join rm_mqtt_users u on u.id = a.user_id',
    where: ['a.tenant_id = $1'],
    params: [tenantId],
    sortable: aclSortBy,
    defaultSort: 'a.created_at',
  };
  if (filter.mqttUserId) spec.where.push(`a.user_id = ${param(spec.params, filter.mqttUserId)}`);
  if (filter.topic) spec.where.push(`a.topic ilike ${param(spec.params, `%${filter.topic}%`)}`);
  return pageRows<MqttAclRecord>(db, page, spec);
}

/** The topic rules of an MQTT user: what the broker lets its sessions publish and subscribe to. */
export async function mqttAclsOf(db: Sql, mqttUserId: string): Promise<{ topic: string; access: MqttAccess }[]> {
  return (await db.query<{ topic: string; access: MqttAccess }>('select topic, access from rm_mqtt_acls where user_id = $1', [mqttUserId]))
    .rows;
}

// ---------------------------------------------------------------- dead letters (forward_outbox)

export type ForwardDeadRecord = {
  id: string;
  ruleId: string;
  serverId: string;
  deviceId: string;
  topic: string | null;
  /** Of a dead letter of several messages (`messages` above 1): a JSON array of their payloads, in order. */
  payload: string;
  messages: number;
  attempts: number;
  error: string | null;
  createdAt: Date;
};

/** A page of a tenant's dead letters, newest first, of one rule if asked. */
export async function forwardDeadPage(
  db: Sql,
  tenantId: string,
  filter: { ruleId?: string },
  page: PageQuery,
): Promise<Page<ForwardDeadRecord>> {
  const spec: ListSpec = {
    select: `id::text, rule_id as "ruleId", server_id as "serverId", device_id as "deviceId", topic, payload, messages, attempts, error,
      created_at as "createdAt"`,
    from: 'forward_outbox',
    where: ['tenant_id = $1', `status = 'dead'`],
    params: [tenantId],
    sortable: { createTime: 'id' },
    defaultSort: 'id',
  };
  if (filter.ruleId) spec.where.push(`rule_id = ${param(spec.params, filter.ruleId)}`);
  return pageRows<ForwardDeadRecord>(db, page, spec);
}

// ---------------------------------------------------------------- retries waiting in the outbox (forward_outbox)

/** Per rule of a tenant, the messages a failed delivery left waiting for another attempt: the system task screen's retries. */
export type ForwardRetryRecord = {
  ruleId: string;
  ruleName: string | null;
  pending: number;
  nextAt: Date;
  lastError: string | null;
};

export async function forwardRetriesOf(db: Sql, tenantId: string): Promise<ForwardRetryRecord[]> {
  return (
    await db.query<ForwardRetryRecord>(
      `select o.rule_id as "ruleId", r.name as "ruleName", o.pending, o."nextAt", o."lastError"
       from (select rule_id, sum(messages)::int as pending, min(next_at) as "nextAt",
               (array_agg(error order by id desc))[1] as "lastError"
             from forward_outbox where tenant_id = $1 and status = 'pending' and attempts > 0 group by rule_id) o
       left join rm_forward_rules r on r.id = o.rule_id
       order by o."nextAt"`,
      [tenantId],
    )
  ).rows;
}
