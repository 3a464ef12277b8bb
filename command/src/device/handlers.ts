import { DomainError, deviceSnScope, type DeviceRoutes } from '@iot/contracts';
import { callerOf, type Handlers, type Ports, type RequestContext } from '@iot/contracts/http/handler.ts';
import type { CommandDispatchers } from '@iot/contracts/ports/dispatch.ts';
import { handleCommand, loadState, newAggregateId } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { releaseClaim } from '../shared/claims.ts';
import { perItem } from '../shared/bulk.ts';
import { productOf } from '../product/handlers.ts';
import { latestVersion } from '@iot/contracts/device/state.ts';
import { assertOwnGroup } from '../group/own.ts';
import { templateDecider, templateStream } from '../template/decide.ts';
import { deviceDecider, deviceStream, type DeviceCommand } from './decide.ts';
import { createDevice } from './create.ts';
import { importDevices } from './import.ts';
import { newDeviceSecret } from './secrets.ts';

/** Refuses a gateway id that is not a gateway of the caller's tenant. */
export async function assertGateway(ctx: RequestContext, gatewayId: string): Promise<void> {
  const nodeType = await ctx.ports.lookups.deviceNodeType(callerOf(ctx).tenantId, gatewayId);
  if (nodeType === null) throw new DomainError('NOT_FOUND', { field: 'gatewayId' });
  if (nodeType !== 'gateway') throw new DomainError('NOT_A_GATEWAY');
}

const command = (ctx: RequestContext, deviceId: string, cmd: DeviceCommand) =>
  runCommand(ctx, deviceDecider, deviceStream(callerOf(ctx).tenantId, deviceId), cmd);

async function deleteDevice(ctx: RequestContext, id: string) {
  const { tenantId } = callerOf(ctx);
  const hasSubDevices = await ctx.ports.lookups.gatewayHasDevices(tenantId, id);
  const result = await command(ctx, id, { type: 'DeleteDevice', deviceId: id, hasSubDevices });
  if (result.state.sn) await releaseClaim(ctx.ports.db, deviceSnScope, result.state.sn, id);
}

async function applyTemplate(ctx: RequestContext, deviceId: string, templateId: string) {
  const { state } = await loadState(ctx.ports.store, templateDecider, templateStream(callerOf(ctx).tenantId, templateId));
  if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND', { field: 'templateId' });
  await command(ctx, deviceId, { type: 'ApplyTemplate', deviceId, templateId, templateProductId: state.fields!.productId });
}

type DeviceWrites =
  | 'device.create'
  | 'device.update'
  | 'device.delete'
  | 'device.rotateSecret'
  | 'device.enable'
  | 'device.disable'
  | 'device.move'
  | 'device.upgradeModel'
  | 'device.bulk'
  | 'gateway.bind'
  | 'template.apply';

/** Devices and gateways (issue 10 "Devices", "Gateways"; spec §3 Device, Gateway). */
export const deviceHandlers: Pick<Handlers<DeviceRoutes>, DeviceWrites> = {
  async 'device.create'({ body }, ctx) {
    const { tenantId } = callerOf(ctx);
    const product = await productOf(ctx, body.productId);
    if (body.groupId) await assertOwnGroup(ctx.ports.lookups, tenantId, body.groupId, 'groupId');
    if (body.gatewayId) await assertGateway(ctx, body.gatewayId);
    const deviceId = newAggregateId(commandContextOf(ctx));
    const { secret, hash } = newDeviceSecret();
    await createDevice(ctx.ports, commandContextOf(ctx), {
      deviceId,
      sn: body.sn,
      name: body.name,
      productId: body.productId,
      modelVersion: latestVersion(product),
      nodeType: product.fields!.type,
      groupId: body.groupId,
      gatewayId: body.gatewayId ?? null,
      location: body.location,
      version: body.version,
      tags: body.tags,
      remark: body.remark,
      secretHash: hash,
    });
    return { id: deviceId, sn: body.sn, secret };
  },

  async 'device.update'({ body }, ctx) {
    const { id, groupId, ...fields } = body;
    if (groupId) await assertOwnGroup(ctx.ports.lookups, callerOf(ctx).tenantId, groupId, 'groupId');
    await command(ctx, id, { type: 'UpdateDevice', deviceId: id, ...fields });
    if (groupId !== undefined) await command(ctx, id, { type: 'MoveDevice', deviceId: id, groupId });
    return { id };
  },

  async 'device.delete'({ query }, ctx) {
    await deleteDevice(ctx, query.id);
    return { id: query.id };
  },

  async 'device.rotateSecret'({ body }, ctx) {
    const { secret, hash } = newDeviceSecret();
    const result = await command(ctx, body.id, { type: 'RotateSecret', deviceId: body.id, secretHash: hash });
    return { id: body.id, sn: result.state.sn!, secret };
  },

  async 'device.enable'({ body }, ctx) {
    await command(ctx, body.id, { type: 'EnableDevice', deviceId: body.id });
    return { id: body.id };
  },

  async 'device.disable'({ body }, ctx) {
    await command(ctx, body.id, { type: 'DisableDevice', deviceId: body.id });
    return { id: body.id };
  },

  async 'device.move'({ body }, ctx) {
    if (body.groupId) await assertOwnGroup(ctx.ports.lookups, callerOf(ctx).tenantId, body.groupId, 'groupId');
    await command(ctx, body.id, { type: 'MoveDevice', deviceId: body.id, groupId: body.groupId });
    return { id: body.id };
  },

  async 'device.upgradeModel'({ body }, ctx) {
    const { state } = await loadState(ctx.ports.store, deviceDecider, deviceStream(callerOf(ctx).tenantId, body.id));
    if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND');
    const product = await productOf(ctx, state.productId!);
    const modelVersion = latestVersion(product);
    await command(ctx, body.id, { type: 'UpgradeModel', deviceId: body.id, modelVersion });
    return { id: body.id, modelVersion };
  },

  async 'device.bulk'({ body }, ctx) {
    const { action, ids, groupId, templateId } = body;
    if (groupId) await assertOwnGroup(ctx.ports.lookups, callerOf(ctx).tenantId, groupId, 'groupId');
    const act = {
      delete: (id: string) => deleteDevice(ctx, id),
      moveGroup: (id: string) => command(ctx, id, { type: 'MoveDevice', deviceId: id, groupId: groupId ?? null }),
      enable: (id: string) => command(ctx, id, { type: 'EnableDevice', deviceId: id }),
      disable: (id: string) => command(ctx, id, { type: 'DisableDevice', deviceId: id }),
      applyTemplate: (id: string) => applyTemplate(ctx, id, templateId!),
    }[action];
    return perItem(ids, act, ctx.lang);
  },

  async 'gateway.bind'({ body }, ctx) {
    if (body.gatewayId) await assertGateway(ctx, body.gatewayId);
    return perItem(body.deviceIds, (id) => command(ctx, id, { type: 'BindGateway', deviceId: id, gatewayId: body.gatewayId }), ctx.lang);
  },

  async 'template.apply'({ body }, ctx) {
    const { tenantId } = callerOf(ctx);
    const { state } = await loadState(ctx.ports.store, templateDecider, templateStream(tenantId, body.id));
    if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND');
    const ids = body.deviceIds ?? (await ctx.ports.lookups.deviceIdsOfProduct(tenantId, state.fields!.productId, 1000));
    return perItem(ids, (id) => applyTemplate(ctx, id, body.id), ctx.lang);
  },
};

/** The bulk import route: the file streams through `importDevices`. */
export const importHandlers: Pick<Handlers<DeviceRoutes>, 'device.import'> = {
  'device.import': ({ body, query }, ctx) => importDevices(ctx, body, query),
};

/** Presence as the intake reports it (ingest/src/presence.ts), through the dispatch port. */
export function deviceDispatchers(ports: Omit<Ports, 'dispatch'>): Pick<CommandDispatchers, 'SetDevicePresence'> {
  return {
    async SetDevicePresence(command, metadata) {
      const result = await handleCommand(
        ports.store,
        deviceDecider,
        deviceStream(metadata.tenantId, command.deviceId),
        { ...command, type: 'SetPresence' },
        { ...metadata },
      );
      return { position: result.events.at(-1)?.position ?? null };
    },
  };
}
