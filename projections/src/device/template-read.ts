import type {
  MqttConfigFields,
  Page,
  PageQuery,
  TemplateFields,
  VariableFields,
  mqttConfigSortable,
  templateSortable,
} from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';

/** A template with its variables in definition order, as the templates projection keeps it (rm_templates). */
export type TemplateRecord = {
  id: string;
  tenantId: string;
  productId: string;
  productName: string | null;
  fields: TemplateFields;
  variables: VariableFields[];
  /** Devices of the tenant it is applied to. */
  deviceCount: number;
  /** The creator's id. */
  createdBy: string;
  createdAt: Date;
};

const TEMPLATE = `t.id, t.tenant_id as "tenantId", t.product_id as "productId",
  (select name from rm_products p where p.id = t.product_id) as "productName", t.fields, t.variables,
  (select count(*)::int from rm_devices d where d.tenant_id = t.tenant_id and d.template_id = t.id) as "deviceCount",
  t.created_by as "createdBy", t.created_at as "createdAt"`;

const templateSort = { createTime: 't.created_at', name: "lower(t.fields->>'name')" } satisfies Record<
  (typeof templateSortable)[number],
  string
>;

/** A page of the tenant's templates: `name` a part of theirs, of a product. */
export async function templatePage(
  db: Sql,
  tenantId: string,
  filter: { name?: string; productId?: string },
  page: PageQuery,
): Promise<Page<TemplateRecord>> {
  const spec: ListSpec = {
    select: TEMPLATE,
    from: 'rm_templates t',
    where: ['t.tenant_id = $1'],
    params: [tenantId],
    sortable: templateSort,
    defaultSort: 't.created_at',
  };
  if (filter.name) spec.where.push(`t.fields->>'name' ilike ${param(spec.params, `%${filter.name}%`)}`);
  if (filter.productId) spec.where.push(`t.product_id = ${param(spec.params, filter.productId)}`);
  return pageRows<TemplateRecord>(db, page, spec);
}

/** A gateway's MQTT config as the mqttConfigs projection keeps it (rm_mqtt_configs): whether a password is set, never the password. */
export type MqttConfigRecord = {
  id: string;
  tenantId: string;
  gatewayId: string;
  gatewayName: string | null;
  fields: Omit<MqttConfigFields, 'password'>;
  hasPassword: boolean;
  createdAt: Date;
};

const MQTT_CONFIG = `c.id, c.tenant_id as "tenantId", c.gateway_id as "gatewayId",
  (select name from rm_devices d where d.id = c.gateway_id) as "gatewayName", c.fields, c.has_password as "hasPassword",
  c.created_at as "createdAt"`;

const mqttConfigSort = { createTime: 'c.created_at', name: 'lower(c.name)' } satisfies Record<(typeof mqttConfigSortable)[number], string>;

/** A page of the tenant's MQTT configs: of a gateway, `name` a part of theirs. */
export async function mqttConfigPage(
  db: Sql,
  tenantId: string,
  filter: { gatewayId?: string; name?: string },
  page: PageQuery,
): Promise<Page<MqttConfigRecord>> {
  const spec: ListSpec = {
    select: MQTT_CONFIG,
    from: 'rm_mqtt_configs c',
    where: ['c.tenant_id = $1'],
    params: [tenantId],
    sortable: mqttConfigSort,
    defaultSort: 'c.created_at',
  };
  if (filter.gatewayId) spec.where.push(`c.gateway_id = ${param(spec.params, filter.gatewayId)}`);
  if (filter.name) spec.where.push(`c.name ilike ${param(spec.params, `%${filter.name}%`)}`);
  return pageRows<MqttConfigRecord>(db, page, spec);
}
