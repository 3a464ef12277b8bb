import type { ContactEvent, NotifyConfigEvent, NotifySettingsEvent, NotifyTemplateEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Contacts, notification templates and configurations. */
export const notifyProjection = projection<ContactEvent | NotifyTemplateEvent | NotifyConfigEvent>({
  name: 'notify',
  handles: [
    'ContactCreated',
    'ContactUpdated',
    'ContactDeleted',
    'NotifyTemplateCreated',
    'NotifyTemplateUpdated',
    'NotifyTemplateDeleted',
    'NotifyConfigCreated',
    'NotifyConfigUpdated',
    'NotifyConfigDeleted',
  ],
  tables: ['rm_contacts', 'rm_notify_templates', 'rm_notify_configs'],
  schema: `
    create table rm_contacts (
      id text primary key,
      tenant_id text not null,
      name text not null,
      phone text,
      email text not null,
      email_activated boolean not null,
      wechat text,
      remark text,
      created_at timestamptz not null
    );
    create index rm_contacts_tenant on rm_contacts (tenant_id, created_at desc);
    create table rm_notify_templates (
      id text primary key,
      tenant_id text not null,
      code text not null,
      name text not null,
      type text not null,
      subject text,
      content text not null,
      created_at timestamptz not null
    );
    create index rm_notify_templates_tenant on rm_notify_templates (tenant_id, created_at desc);
    create table rm_notify_configs (
      id text primary key,
      tenant_id text not null,
      name text not null,
      source text not null,
      group_id text,
      type text not null,
      template_id text not null,
      send_ways text[] not null,
      contact_ids text[] not null,
      min_level int not null,
      status text not null,
      created_at timestamptz not null
    );
    create index rm_notify_configs_tenant on rm_notify_configs (tenant_id, created_at desc);`,
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    const tenantId = event.metadata.tenantId;
    switch (event.type) {
      case 'ContactCreated':
      case 'ContactUpdated': {
        const d = event.data;
        await tx.query(
          `insert into rm_contacts (id, tenant_id, name, phone, email, email_activated, wechat, remark, created_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
           on conflict (id) do update set name = $3, phone = $4, email = $5, email_activated = $6, wechat = $7, remark = $8`,
          [d.contactId, tenantId, d.name, d.phone, d.email, d.emailActivated, d.wechat, d.remark, at],
        );
        return;
      }
      case 'ContactDeleted':
        await tx.query('delete from rm_contacts where id = $1', [event.data.contactId]);
        return;
      case 'NotifyTemplateCreated':
      case 'NotifyTemplateUpdated': {
        const d = event.data;
        await tx.query(
          `insert into rm_notify_templates (id, tenant_id, code, name, type, subject, content, created_at) values ($1, $2, $3, $4, $5, $6, $7, $8)
           on conflict (id) do update set code = $3, name = $4, type = $5, subject = $6, content = $7`,
          [d.templateId, tenantId, d.code, d.name, d.type, d.subject, d.content, at],
        );
        return;
      }
      case 'NotifyTemplateDeleted':
        await tx.query('delete from rm_notify_templates where id = $1', [event.data.templateId]);
        return;
      case 'NotifyConfigCreated':
      case 'NotifyConfigUpdated': {
        const d = event.data;
        await tx.query(
          `insert into rm_notify_configs (id, tenant_id, name, source, group_id, type, template_id, send_ways, contact_ids, min_level, status, created_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
           on conflict (id) do update set name = $3, source = $4, group_id = $5, type = $6, template_id = $7, send_ways = $8, contact_ids = $9,
             min_level = $10, status = $11`,
          [d.configId, tenantId, d.name, d.source, d.groupId, d.type, d.templateId, d.sendWays, d.contactIds, d.minLevel, d.status, at],
        );
        return;
      }
      case 'NotifyConfigDeleted':
        await tx.query('delete from rm_notify_configs where id = $1', [event.data.configId]);
        return;
    }
  },
});

/** A tenant's notification settings (never a credential: those live in notify_channel_secrets beside the log). */
export const notifySettingsProjection = projection<NotifySettingsEvent>({
  name: 'notifySettings',
  handles: ['NotifySettingsUpdated'],
  tables: ['rm_notify_settings'],
  schema: `
    create table rm_notify_settings (
      tenant_id text primary key,
      smtp_from text,
      sms_endpoint text,
      sms_sign_name text,
      sms_template_code text,
      tenant_per_min int,
      contact_per_min int,
      quiet_hours jsonb,
      updated_at timestamptz not null
    );`,
  async apply(tx, event) {
    const d = event.data;
    await tx.query(
      `insert into rm_notify_settings (tenant_id, smtp_from, sms_endpoint, sms_sign_name, sms_template_code, tenant_per_min, contact_per_min, quiet_hours, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       on conflict (tenant_id) do update set smtp_from = $2, sms_endpoint = $3, sms_sign_name = $4, sms_template_code = $5, tenant_per_min = $6,
         contact_per_min = $7, quiet_hours = $8, updated_at = $9`,
      [
        event.metadata.tenantId,
        d.smtpFrom,
        d.smsEndpoint,
        d.smsSignName,
        d.smsTemplateCode,
        d.tenantPerMinute,
        d.contactPerMinute,
        d.quietHours ? JSON.stringify(d.quietHours) : null,
        event.metadata.occurredAt,
      ],
    );
  },
});
