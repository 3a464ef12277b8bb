import { DomainError, type CameraFields, type VideoRoutes } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { loadState, newAggregateId } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { cameraDecider, cameraStream, liveCamera, type CameraCommand } from './decide.ts';

/** The group and the device a camera watches are the caller's tenant's. */
async function checkPlace(ctx: RequestContext, camera: CameraFields) {
  const { tenantId } = callerOf(ctx);
  if (camera.groupId && !(await ctx.ports.lookups.groupExists(tenantId, camera.groupId)))
    throw new DomainError('NOT_FOUND', { field: 'groupId' });
  if (camera.deviceId && (await ctx.ports.lookups.devicesOfTenant(tenantId, [camera.deviceId])).length === 0)
    throw new DomainError('NOT_FOUND', { field: 'deviceId' });
}

/** A camera of the caller's tenant, from its stream (NOT_FOUND when none or deleted): what an alarm rule names. */
export async function cameraOf(ctx: RequestContext, cameraId: string): Promise<CameraFields> {
  const { state } = await loadState(ctx.ports.store, cameraDecider, cameraStream(callerOf(ctx).tenantId, cameraId));
  return liveCamera(state);
}

const cameraCommand = (ctx: RequestContext, cameraId: string, command: CameraCommand) =>
  runCommand(ctx, cameraDecider, cameraStream(callerOf(ctx).tenantId, cameraId), command);

export const videoHandlers: Pick<Handlers<VideoRoutes>, 'camera.create' | 'camera.update' | 'camera.delete'> = {
  async 'camera.create'({ body }, ctx) {
    await checkPlace(ctx, body);
    const cameraId = newAggregateId(commandContextOf(ctx));
    await cameraCommand(ctx, cameraId, { type: 'RegisterCamera', cameraId, fields: body });
    return { id: cameraId };
  },

  async 'camera.update'({ body }, ctx) {
    const { id, ...fields } = body;
    await checkPlace(ctx, fields);
    await cameraCommand(ctx, id, { type: 'UpdateCamera', cameraId: id, fields });
    return { id };
  },

  async 'camera.delete'({ query }, ctx) {
    await cameraCommand(ctx, query.id, { type: 'DeleteCamera', cameraId: query.id });
    return { id: query.id };
  },
};
