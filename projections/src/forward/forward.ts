import type { ForwardRuleEvent, ForwardServerEvent, MqttAclEvent, MqttUserEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Forwarding servers and rules. */
export const forwardProjection = projection<ForwardServerEvent | ForwardRuleEvent>({
  name: 'forward',
  handles: [
    'ForwardServerCreated',
    'ForwardServerUpdated',
    'ForwardServerDeleted',
    'ForwardRuleCreated',
    'ForwardRuleUpdated',
    'ForwardRuleDeleted',
  ],
  tables: ['rm_forward_servers', 'rm_forward_rules'],
  schema: `
    create table rm_forward_servers (
      id text primary key,
      tenant_id text not null,
      type text not null,
      name text not null,
      ip text not null,
      port int not null,
      url text,
      username text,
      client_id text,
      tls boolean not null,
      remark text,
      has_password boolean not null,
      created_at timestamptz not null,
      batch_size int not null default 1
    );
    create index rm_forward_servers_tenant on rm_forward_servers (tenant_id, type, created_at desc);
    create table rm_forward_rules (
      id text primary key,
      tenant_id text not null,
      name text not null,
      product_ids text[] not null,
      device_ids text[] not null,
      message_types text[] not null,
      server_id text not null,
      topic text,
      payload_template text,
      status text not null,
      created_at timestamptz not null
    );
    create index rm_forward_rules_tenant on rm_forward_rules (tenant_id, created_at desc);
    create index rm_forward_rules_server on rm_forward_rules (server_id);`,
  migrations: [
    {
      version: 2,
      name: 'messages per POST to an HTTP server',
      sql: 'alter table rm_forward_servers add column if not exists batch_size int not null default 1;',
    },
  ],
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    const tenantId = event.metadata.tenantId;
    switch (event.type) {
      case 'ForwardServerCreated':
      case 'ForwardServerUpdated': {
        const d = event.data;
        await tx.query(
          `insert into rm_forward_servers (id, tenant_id, type, name, ip, port, url, username, client_id, tls, remark, has_password, created_at,
             batch_size)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
           on conflict (id) do update set type = $3, name = $4, ip = $5, port = $6, url = $7, username = $8, client_id = $9, tls = $10,
             remark = $11, has_password = $12, batch_size = $14`,
          [
            d.serverId,
            tenantId,
            d.type,
            d.name,
            d.ip,
            d.port,
            d.url,
            d.username,
            d.clientId,
            d.tls,
            d.remark,
            d.hasPassword,
            at,
            d.batchSize ?? 1,
          ],
        );
        return;
      }
      case 'ForwardServerDeleted':
        await tx.query('delete from rm_forward_servers where id = $1', [event.data.serverId]);
        return;
      case 'ForwardRuleCreated':
      case 'ForwardRuleUpdated': {
        const d = event.data;
        await tx.query(
          `insert into rm_forward_rules (id, tenant_id, name, product_ids, device_ids, message_types, server_id, topic, payload_template, status, created_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
           on conflict (id) do update set name = $3, product_ids = $4, device_ids = $5, message_types = $6, server_id = $7, topic = $8,
             payload_template = $9, status = $10`,
          [d.ruleId, tenantId, d.name, d.productIds, d.deviceIds, d.messageTypes, d.serverId, d.topic, d.payloadTemplate, d.status, at],
        );
        return;
      }
      case 'ForwardRuleDeleted':
        await tx.query('delete from rm_forward_rules where id = $1', [event.data.ruleId]);
        return;
    }
  },
});

/** MQTT users of the platform's broker and their topic rules (a user's rules go with it). */
export const mqttAuthProjection = projection<MqttUserEvent | MqttAclEvent>({
  name: 'mqttAuth',
  handles: [
    'MqttUserCreated',
    'MqttUserUpdated',
    'MqttUserPasswordChanged',
    'MqttUserDeleted',
    'MqttAclCreated',
    'MqttAclUpdated',
    'MqttAclDeleted',
  ],
  tables: ['rm_mqtt_users', 'rm_mqtt_acls'],
  schema: `
    create table rm_mqtt_users (
      id text primary key,
      tenant_id text not null,
      username text not null,
      remark text,
      password_changed_at timestamptz,
      created_at timestamptz not null
    );
    create unique index rm_mqtt_users_username on rm_mqtt_users (lower(username));
    create index rm_mqtt_users_tenant on rm_mqtt_users (tenant_id, created_at desc);
    create table rm_mqtt_acls (
      id text primary key,
      tenant_id text not null,
      user_id text not null,
      topic text not null,
      access text not null,
      created_at timestamptz not null
    );
    create index rm_mqtt_acls_user on rm_mqtt_acls (user_id);
    create index rm_mqtt_acls_tenant on rm_mqtt_acls (tenant_id, created_at desc);`,
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    const tenantId = event.metadata.tenantId;
    switch (event.type) {
      case 'MqttUserCreated':
      case 'MqttUserUpdated': {
        const d = event.data;
        await tx.query(
          `insert into rm_mqtt_users (id, tenant_id, username, remark, created_at) values ($1, $2, $3, $4, $5)
           on conflict (id) do update set username = $3, remark = $4`,
          [d.mqttUserId, tenantId, d.username, d.remark, at],
        );
        return;
      }
      case 'MqttUserPasswordChanged':
        await tx.query('update rm_mqtt_users set password_changed_at = $2 where id = $1', [event.data.mqttUserId, at]);
        return;
      case 'MqttUserDeleted':
        await tx.query('delete from rm_mqtt_users where id = $1', [event.data.mqttUserId]);
        await tx.query('delete from rm_mqtt_acls where user_id = $1', [event.data.mqttUserId]);
        return;
      case 'MqttAclCreated':
      case 'MqttAclUpdated': {
        const d = event.data;
        await tx.query(
          `insert into rm_mqtt_acls (id, tenant_id, user_id, topic, access, created_at) values ($1, $2, $3, $4, $5, $6)
           on conflict (id) do update set user_id = $3, topic = $4, access = $5`,
          [d.aclId, tenantId, d.mqttUserId, d.topic, d.access, at],
        );
        return;
      }
      case 'MqttAclDeleted':
        await tx.query('delete from rm_mqtt_acls where id = $1', [event.data.aclId]);
        return;
    }
  },
});
