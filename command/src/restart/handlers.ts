import {
  DomainError,
  RESTART_SERVICE,
  restartAck,
  restartMessageId,
  restartTaskOfMessage,
  type RestartRoutes,
  type RestartTaskCreate,
} from '@iot/contracts';
import { callerOf, type Handlers, type Ports } from '@iot/contracts/http/handler.ts';
import type { CommandDispatchers, DispatchMetadata } from '@iot/contracts/ports/dispatch.ts';
import type { EventStore } from '@iot/contracts/ports/event-store.ts';
import type { Lookups } from '@iot/contracts/ports/lookups.ts';
import { deviceDecider, deviceStream } from '../device/decide.ts';
import { handleCommand, loadState, newAggregateId, type CommandContext } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { OTA_MAX_DEVICES } from '../ota/handlers.ts';
import { restartTaskDecider, restartTaskStream, type RestartTaskCommand } from './decide.ts';

/** Creates a restart task: the target's devices are frozen into the plan; the expiry must be later than the task time. */
export async function createRestartTask(
  ports: { store: EventStore; lookups: Lookups },
  context: CommandContext,
  body: RestartTaskCreate,
): Promise<string> {
  const { tenantId } = context;
  const { target } = body;
  if (target.kind === 'group' && !(await ports.lookups.groupExists(tenantId, target.groupId)))
    throw new DomainError('NOT_FOUND', { field: 'target.groupId' });
  const found = await ports.lookups.devicesForRollout(tenantId, target, OTA_MAX_DEVICES);
  const taskId = newAggregateId(context);
  await handleCommand(
    ports.store,
    restartTaskDecider,
    restartTaskStream(tenantId, taskId),
    {
      type: 'CreateRestartTask',
      taskId,
      name: body.name,
      target,
      taskTime: new Date(body.taskTime).toISOString(),
      expiry: new Date(body.expiry).toISOString(),
      devices: found.map((d) => ({ deviceId: d.deviceId, sn: d.sn })),
    },
    context,
  );
  return taskId;
}

export const restartHandlers: Pick<Handlers<RestartRoutes>, 'restartTask.create' | 'restartTask.cancel'> = {
  async 'restartTask.create'({ body }, ctx) {
    return { id: await createRestartTask(ctx.ports, commandContextOf(ctx), body) };
  },
  async 'restartTask.cancel'({ body }, ctx) {
    await runCommand(ctx, restartTaskDecider, restartTaskStream(callerOf(ctx).tenantId, body.id), {
      type: 'CancelRestartTask',
      taskId: body.id,
    });
    return { id: body.id };
  },
};

type RestartDispatched = 'StartRestartTask' | 'RetryRestartDevice' | 'ExpireRestartTask' | 'RecordRestartReply';

const positionOf = (result: { events: Array<{ position: string }> }) => ({ position: result.events.at(-1)?.position ?? null });

/**
 * The restart task's steps, as its ticker and the device replies dispatch them. A device sent the restart gets the
 * reserved `restart` service over the device-command path, recorded on its own stream as an asynchronous command so
 * that its reply (`devices/{sn}/reply/restart-{taskId}`) comes back as DeviceCommandReplied.
 */
export function restartDispatchers(ports: Omit<Ports, 'dispatch'>): Pick<CommandDispatchers, RestartDispatched> {
  const onTask = (metadata: DispatchMetadata, command: RestartTaskCommand) =>
    handleCommand(ports.store, restartTaskDecider, restartTaskStream(metadata.tenantId, command.taskId), command, { ...metadata });

  const sendRestart = async (metadata: DispatchMetadata, taskId: string, device: { deviceId: string; sn: string }) => {
    if (!ports.link) return;
    const message = { messageId: restartMessageId(taskId), kind: 'service' as const, identifier: RESTART_SERVICE, params: { taskId } };
    await handleCommand(
      ports.store,
      deviceDecider,
      deviceStream(metadata.tenantId, device.deviceId),
      { type: 'SendCommand', deviceId: device.deviceId, ...message, mode: 'async' },
      { ...metadata, idempotencyKey: `${metadata.idempotencyKey}:${device.deviceId}` },
    );
    await ports.link.send(device, message, null);
  };
  const reachable = async (device: { deviceId: string; sn: string }) => !!ports.link && (await ports.link.reachable(device));

  return {
    async StartRestartTask(command, metadata) {
      const { state } = await loadState(ports.store, restartTaskDecider, restartTaskStream(metadata.tenantId, command.taskId));
      const online: string[] = [];
      if (state.status === 'nonExecution') for (const d of state.devices) if (await reachable(d)) online.push(d.deviceId);
      const result = await onTask(metadata, { type: 'StartRestartTask', taskId: command.taskId, at: command.at, online });
      // The task started now (not by an earlier try): each device found online was sent the restart.
      if (result.applied && result.events.length > 0)
        for (const d of state.devices) if (online.includes(d.deviceId)) await sendRestart(metadata, command.taskId, d);
      return positionOf(result);
    },

    async RetryRestartDevice(command, metadata) {
      const { state } = await loadState(ports.store, restartTaskDecider, restartTaskStream(metadata.tenantId, command.taskId));
      const device = state.devices.find((d) => d.deviceId === command.deviceId);
      if (!device || state.deviceStatus.get(device.deviceId) !== 'pause' || !(await reachable(device))) return { position: null };
      const result = await onTask(metadata, { ...command, type: 'RetryRestartDevice' });
      if (result.applied && result.events.length > 0) await sendRestart(metadata, command.taskId, device);
      return positionOf(result);
    },

    async ExpireRestartTask(command, metadata) {
      return positionOf(await onTask(metadata, { ...command, type: 'ExpireRestartTask' }));
    },

    async RecordRestartReply(command, metadata) {
      const taskId = restartTaskOfMessage(command.messageId);
      if (!taskId) return { position: null };
      const ack = restartAck(command.output);
      const base = { type: 'AcknowledgeRestart' as const, taskId, deviceId: command.deviceId };
      return positionOf(await onTask(metadata, ack.ok ? { ...base, ok: true } : { ...base, ok: false, reason: ack.reason }));
    },
  };
}
