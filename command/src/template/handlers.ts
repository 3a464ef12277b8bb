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
    await runCommand(ctx, templateDecider, templateStream(callerOf(ctx).tenantId, templateId), { type: 'CreateTemplate', templateId, fields: body });
    return { id: templateId };
  },

  async 'template.update'({ body }, ctx) {
    const { id, ...fields } = body;
    await runCommand(ctx, templateDecider, templateStream(callerOf(ctx).tenantId, id), { type: 'UpdateTemplate', templateId: id, fields });
    return { id };
  },

  async 'template.delete'({ query }, ctx) {
    await runCommand(ctx, templateDecider, templateStream(callerOf(ctx).tenantId, query.id), { type: 'DeleteTemplate', templateId: query.id });
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
    await runCommand(ctx, mqttConfigDecider, mqttConfigStream(callerOf(ctx).tenantId, configId), { type: 'CreateMqttConfig', configId, fields: body });
    return { id: configId };
  },

  async 'mqttConfig.update'({ body }, ctx) {
    const { id, ...fields } = body;
    await assertGateway(ctx, fields.gatewayId);
    await runCommand(ctx, mqttConfigDecider, mqttConfigStream(callerOf(ctx).tenantId, id), { type: 'UpdateMqttConfig', configId: id, fields });
    return { id };
  },

  async 'mqttConfig.delete'({ query }, ctx) {
    await runCommand(ctx, mqttConfigDecider, mqttConfigStream(callerOf(ctx).tenantId, query.id), { type: 'DeleteMqttConfig', configId: query.id });
    return { id: query.id };
  },
};
