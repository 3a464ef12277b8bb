import type { MqttConfigEvent, TemplateEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Templates with their variables (as one JSON array, in definition order). */
export const templatesProjection = projection<TemplateEvent>({
  name: 'templates',
  handles: ['TemplateCreated', 'TemplateUpdated', 'TemplateVariableDefined', 'TemplateVariableRemoved', 'TemplateDeleted'],
  tables: ['rm_templates'],
  schema: `
    create table rm_templates (
      id text primary key,
      tenant_id text not null,
      product_id text not null,
      fields jsonb not null,
      variables jsonb not null default '[]',
      created_by text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index rm_templates_tenant on rm_templates (tenant_id, created_at desc);`,
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    const id = event.data.templateId;
    switch (event.type) {
      case 'TemplateCreated':
        await tx.query(
          `insert into rm_templates (id, tenant_id, product_id, fields, created_by, created_at, updated_at) values ($1, $2, $3, $4, $5, $6, $6)
           on conflict (id) do nothing`,
          [id, event.metadata.tenantId, event.data.fields.productId, JSON.stringify(event.data.fields), event.metadata.actor.id, at],
        );
        return;
      case 'TemplateUpdated':
        await tx.query('update rm_templates set fields = $2, product_id = $3, updated_at = $4 where id = $1', [
          id,
          JSON.stringify(event.data.fields),
          event.data.fields.productId,
          at,
        ]);
        return;
      case 'TemplateVariableDefined':
        await tx.query(
          `update rm_templates set updated_at = $3, variables =
             case when exists (select 1 from jsonb_array_elements(variables) v where v->>'identifier' = $2::jsonb->>'identifier')
               then (select jsonb_agg(case when v->>'identifier' = $2::jsonb->>'identifier' then $2::jsonb else v end order by n)
                     from jsonb_array_elements(variables) with ordinality as x(v, n))
               else variables || jsonb_build_array($2::jsonb) end
           where id = $1`,
          [id, JSON.stringify(event.data.variable), at],
        );
        return;
      case 'TemplateVariableRemoved':
        await tx.query(
          `update rm_templates set updated_at = $3, variables = coalesce((select jsonb_agg(v order by n)
             from jsonb_array_elements(variables) with ordinality as x(v, n) where v->>'identifier' <> $2), '[]') where id = $1`,
          [id, event.data.identifier, at],
        );
        return;
      case 'TemplateDeleted':
        await tx.query('delete from rm_templates where id = $1', [id]);
        return;
    }
  },
});

/** MQTT configs of gateways; whether a password is set, never the password (command/src/template/handlers.ts keeps it). */
export const mqttConfigsProjection = projection<MqttConfigEvent>({
  name: 'mqttConfigs',
  handles: ['MqttConfigCreated', 'MqttConfigUpdated', 'MqttConfigDeleted'],
  tables: ['rm_mqtt_configs'],
  schema: `
    create table rm_mqtt_configs (
      id text primary key,
      tenant_id text not null,
      gateway_id text not null,
      name text not null,
      fields jsonb not null,
      has_password boolean not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index rm_mqtt_configs_tenant on rm_mqtt_configs (tenant_id, created_at desc);`,
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    const id = event.data.configId;
    if (event.type === 'MqttConfigDeleted') {
      await tx.query('delete from rm_mqtt_configs where id = $1', [id]);
      return;
    }
    const { password: _never, ...fields } = event.data.fields;
    await tx.query(
      `insert into rm_mqtt_configs (id, tenant_id, gateway_id, name, fields, has_password, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $7)
       on conflict (id) do update set gateway_id = $3, name = $4, fields = $5, has_password = $6, updated_at = $7`,
      [id, event.metadata.tenantId, fields.gatewayId, fields.name, JSON.stringify(fields), event.data.hasPassword, at],
    );
  },
});
