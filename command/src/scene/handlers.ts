import { DomainError, type SceneFields, type SceneRoutes } from '@iot/contracts';
import { callerOf, type Handlers, type Ports, type RequestContext } from '@iot/contracts/http/handler.ts';
import { VersionConflictError } from '@iot/contracts/ports/event-store.ts';
import type { CommandDispatchers } from '@iot/contracts/ports/dispatch.ts';
import { handleCommand, handleNewStream, loadState, newAggregateId } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { notifyConfigDecider, notifyConfigStream } from '../notify/decide.ts';
import { sceneDecider, sceneRunDecider, sceneRunStream, sceneStream, type SceneCommand } from './decide.ts';

/** Every device a scene names, and every scene it enables or stops, is one of the caller's tenant. */
async function checkReferences(ctx: RequestContext, fields: SceneFields) {
  const { tenantId } = callerOf(ctx);
  const devices = new Set<string>();
  for (const t of fields.triggers) if (t.type === 'device') devices.add(t.deviceId);
  for (const c of fields.conditions) if (c.type !== 'time') devices.add(c.deviceId);
  for (const a of fields.actions) {
    if (a.type === 'setProperty' || a.type === 'invokeService') devices.add(a.deviceId);
    if (a.type === 'rotation') a.deviceIds.forEach((id) => devices.add(id));
    if (a.type === 'notify' && a.deviceId) devices.add(a.deviceId);
  }
  const found = new Set(await ctx.ports.lookups.devicesOfTenant(tenantId, [...devices]));
  const missing = [...devices].find((id) => !found.has(id));
  if (missing) throw new DomainError('NOT_FOUND', { field: 'deviceId', value: missing });
  for (const [i, a] of fields.actions.entries()) {
    if (a.type === 'notify') {
      const { state } = await loadState(ctx.ports.store, notifyConfigDecider, notifyConfigStream(tenantId, a.configId));
      if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND', { field: `actions.${i}.configId` });
    }
    if (a.type !== 'sceneStatus') continue;
    const { state } = await loadState(ctx.ports.store, sceneDecider, sceneStream(tenantId, a.sceneId));
    if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND', { field: `actions.${i}.sceneId` });
  }
}

const sceneCommand = (ctx: RequestContext, sceneId: string, command: SceneCommand) =>
  runCommand(ctx, sceneDecider, sceneStream(callerOf(ctx).tenantId, sceneId), command);

type SceneWrites = 'scene.create' | 'scene.update' | 'scene.status' | 'scene.delete' | 'scene.invoke';

/** Scene linkage (issue 19): a scene is a stream of its own; each run another (see the dispatchers below). */
export const sceneHandlers: Pick<Handlers<SceneRoutes>, SceneWrites> = {
  async 'scene.create'({ body }, ctx) {
    await checkReferences(ctx, body);
    const sceneId = newAggregateId(commandContextOf(ctx));
    await sceneCommand(ctx, sceneId, { type: 'CreateScene', sceneId, fields: body, enabled: false });
    return { id: sceneId };
  },

  async 'scene.update'({ body }, ctx) {
    const { id, ...fields } = body;
    await checkReferences(ctx, fields);
    await sceneCommand(ctx, id, { type: 'UpdateScene', sceneId: id, fields });
    return { id };
  },

  async 'scene.status'({ body }, ctx) {
    await sceneCommand(ctx, body.id, { type: 'SetSceneStatus', sceneId: body.id, status: body.status });
    return { id: body.id };
  },

  async 'scene.delete'({ query }, ctx) {
    await sceneCommand(ctx, query.id, { type: 'DeleteScene', sceneId: query.id });
    return { id: query.id };
  },

  /** The invoke is an event; the scene reactor runs it (where the projections run) and logs the run under `runId`. */
  async 'scene.invoke'({ body }, ctx) {
    // From the request's idempotency key when it has one: a retried invoke names the run the first one started.
    const runId = newAggregateId(commandContextOf(ctx));
    await sceneCommand(ctx, body.id, { type: 'InvokeScene', sceneId: body.id, runId });
    return { id: body.id, runId };
  },
};

/** What the scene reactor and scheduler ask of the write side, through the dispatch port. */
export function sceneDispatchers(
  ports: Pick<Ports, 'store'>,
): Pick<CommandDispatchers, 'StartSceneRun' | 'FinishSceneRun' | 'SetSceneStatus'> {
  return {
    /** The claim of a run: appended on a stream that must not exist, so a second process trying the same run gets no id. */
    async StartSceneRun(command, metadata) {
      const { type: _type, ...run } = command;
      try {
        const result = await handleNewStream(
          ports.store,
          sceneRunDecider,
          sceneRunStream(metadata.tenantId, run.runId),
          { type: 'StartSceneRun', run },
          metadata,
        );
        return { position: result.events.at(-1)?.position ?? null, id: run.runId };
      } catch (error) {
        if (error instanceof VersionConflictError) return { position: null };
        throw error;
      }
    },
    async FinishSceneRun(command, metadata) {
      const { type: _type, ...run } = command;
      const result = await handleCommand(
        ports.store,
        sceneRunDecider,
        sceneRunStream(metadata.tenantId, run.runId),
        { type: 'FinishSceneRun', run },
        metadata,
      );
      return { position: result.events.at(-1)?.position ?? null, id: run.runId };
    },
    /** A scene's action that enables or stops another scene. */
    async SetSceneStatus(command, metadata) {
      const result = await handleCommand(
        ports.store,
        sceneDecider,
        sceneStream(metadata.tenantId, command.sceneId),
        { type: 'SetSceneStatus', sceneId: command.sceneId, status: command.status },
        metadata,
      );
      return { position: result.events.at(-1)?.position ?? null, id: command.sceneId };
    },
  };
}
