import type { ContactEvent, NotifyConfigEvent, NotifyTemplateEvent } from '@iot/contracts';
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
