import { DomainError, type DeviceRoutes } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { loadState, newAggregateId } from '../handler.ts';
import { assertGateway } from '../device/handlers.ts';
import { productOf } from '../product/handlers.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { mqttConfigDecider, mqttConfigStream } from '../mqtt-config/decide.ts';
import { templateDecider, templateStream } from './decide.ts';

/** The property identifiers of a product's draft thing model: the names a variable may take. */
async function propertiesOf(ctx: RequestContext, productId: string): Promise<string[]> {
  const product = await productOf(ctx, productId);
  return product.functions.filter((f) => f.type === 'property').map((f) => f.identifier);
}

/** MQTT passwords live beside the event log, never in it: an immutable log would keep an old password forever. */
export const mqttSecretsSchema = `
create table mqtt_config_secrets (
  config_id text primary key,
  tenant_id text not null,
  password text not null,
  updated_at timestamptz not null default now()
);`;

async function storePassword(ctx: RequestContext, configId: string, password: string | null) {
  if (!password) return;
  await ctx.ports.db.query(
    `insert into mqtt_config_secrets (config_id, tenant_id, password) values ($1, $2, $3)
     on conflict (config_id) do update set password = $3, updated_at = now() where mqtt_config_secrets.tenant_id = $2`,
    [configId, callerOf(ctx).tenantId, password],
  );
}

type TemplateWrites =
  | 'template.create'
  | 'template.update'
  | 'template.delete'
  | 'template.defineVariable'
  | 'template.removeVariable'
  | 'mqttConfig.create'
  | 'mqttConfig.update'
  | 'mqttConfig.delete';

/** Templates with their variables, and the MQTT configs of gateways (issue 10, spec §3). */
export const templateHandlers: Pick<Handlers<DeviceRoutes>, TemplateWrites> = {
  async 'template.create'({ body }, ctx) {
    await productOf(ctx, body.productId);
    const templateId = newAggregateId(commandContextOf(ctx));
    await runCommand(ctx, templateDecider, templateStream(callerOf(ctx).tenantId, templateId), {
      type: 'CreateTemplate',
      templateId,
      fields: body,
    });
    return { id: templateId };
  },

  async 'template.update'({ body }, ctx) {
    const { id, ...fields } = body;
    await runCommand(ctx, templateDecider, templateStream(callerOf(ctx).tenantId, id), { type: 'UpdateTemplate', templateId: id, fields });
    return { id };
  },

  async 'template.delete'({ query }, ctx) {
    await runCommand(ctx, templateDecider, templateStream(callerOf(ctx).tenantId, query.id), {
      type: 'DeleteTemplate',
      templateId: query.id,
    });
    return { id: query.id };
  },

  async 'template.defineVariable'({ body }, ctx) {
    const { templateId, ...variable } = body;
    const stream = templateStream(callerOf(ctx).tenantId, templateId);
    const { state } = await loadState(ctx.ports.store, templateDecider, stream);
    if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND');
    const properties = await propertiesOf(ctx, state.fields!.productId);
    await runCommand(ctx, templateDecider, stream, { type: 'DefineVariable', templateId, variable, properties });
    return { id: templateId };
  },

  async 'template.removeVariable'({ query }, ctx) {
    await runCommand(ctx, templateDecider, templateStream(callerOf(ctx).tenantId, query.templateId), {
      type: 'RemoveVariable',
      templateId: query.templateId,
      identifier: query.identifier,
    });
    return { id: query.templateId };
  },

  async 'mqttConfig.create'({ body }, ctx) {
    await assertGateway(ctx, body.gatewayId);
    const configId = newAggregateId(commandContextOf(ctx));
    await storePassword(ctx, configId, body.password);
    await runCommand(ctx, mqttConfigDecider, mqttConfigStream(callerOf(ctx).tenantId, configId), {
      type: 'CreateMqttConfig',
      configId,
      fields: body,
      passwordGiven: !!body.password,
    });
    return { id: configId };
  },

  async 'mqttConfig.update'({ body }, ctx) {
    const { id, ...fields } = body;
    await assertGateway(ctx, fields.gatewayId);
    const stream = mqttConfigStream(callerOf(ctx).tenantId, id);
    const { state } = await loadState(ctx.ports.store, mqttConfigDecider, stream);
    if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND');
    await storePassword(ctx, id, fields.password);
    await runCommand(ctx, mqttConfigDecider, stream, { type: 'UpdateMqttConfig', configId: id, fields, passwordGiven: !!fields.password });
    return { id };
  },

  async 'mqttConfig.delete'({ query }, ctx) {
    await runCommand(ctx, mqttConfigDecider, mqttConfigStream(callerOf(ctx).tenantId, query.id), {
      type: 'DeleteMqttConfig',
      configId: query.id,
    });
    return { id: query.id };
  },
};
