import {
  DomainError,
  OTA_OFFER_SERVICE,
  rolloutFileTypes,
  type OtaOffer,
  type OtaRoutes,
  type OtaTaskCreate,
  type StoredFile,
} from '@iot/contracts';
import { tellOtaDeviceEvent } from '@iot/contracts/ota/feed.ts';
import { callerOf, type Handlers, type Ports, type RequestContext } from '@iot/contracts/http/handler.ts';
import type { CommandDispatchers, DispatchMetadata } from '@iot/contracts/ports/dispatch.ts';
import type { Lookups } from '@iot/contracts/ports/lookups.ts';
import type { EventStore } from '@iot/contracts/ports/event-store.ts';
import { handleCommand, newAggregateId, streamCache, type CommandContext } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { otaDeviceDecider, otaDeviceStream, otaTaskDecider, otaTaskStream, type OtaDeviceCommand, type OtaTaskCommand } from './decide.ts';
import { isSettled } from './device.ts';
import { waveDevices } from './task.ts';

/** A wave's offers (or a cancel's devices) appended at once (one group commit), at most. */
const OFFERS_AT_ONCE = 500;

/** The most devices one rollout targets. */
export const OTA_MAX_DEVICES = 10_000;

export type FileOf = (tenantId: string, fileId: string) => Promise<StoredFile | null>;

/**
 * Creates a rollout: the file must be an upgrade, patch or configuration file of the tenant, and the target's devices
 * are frozen into the plan. `fileOf` is the files capability's lookup (a stub in tests that run without it).
 */
export async function createOtaTask(
  ports: { store: EventStore; lookups: Lookups },
  context: CommandContext,
  body: OtaTaskCreate,
  fileOf: FileOf = (tenantId, fileId) => ports.lookups.fileById(tenantId, fileId),
): Promise<string> {
  const { tenantId } = context;
  const file = await fileOf(tenantId, body.fileId);
  if (!file || file.tenantId !== tenantId) throw new DomainError('OTA_FILE_UNFIT', { field: 'fileId' });
  const fileType = rolloutFileTypes.find((t) => t === file.fileType);
  if (!fileType) throw new DomainError('OTA_FILE_UNFIT', { field: 'fileId' });
  const { target } = body;
  if (target.kind === 'group' && !(await ports.lookups.groupExists(tenantId, target.groupId)))
    throw new DomainError('NOT_FOUND', { field: 'target.groupId' });
  const found = await ports.lookups.devicesForRollout(tenantId, target, OTA_MAX_DEVICES);
  const taskId = newAggregateId(context);
  await handleCommand(
    ports.store,
    otaTaskDecider,
    otaTaskStream(tenantId, taskId),
    {
      type: 'CreateOtaTask',
      taskId,
      name: body.name,
      file: {
        fileId: file.id,
        name: file.name,
        fileType,
        version: file.version,
        size: file.size,
        sha256: file.sha256,
        storageKey: file.storageKey,
      },
      target,
      waves: body.waves,
      devices: found.map((d) => ({ deviceId: d.deviceId, sn: d.sn, fromVersion: d.version })),
    },
    context,
  );
  return taskId;
}

const taskCommand = (ctx: RequestContext, taskId: string, command: OtaTaskCommand) =>
  runCommand(ctx, otaTaskDecider, otaTaskStream(callerOf(ctx).tenantId, taskId), command);

export const otaHandlers: Pick<Handlers<OtaRoutes>, 'otaTask.create' | 'otaTask.pause' | 'otaTask.resume' | 'otaTask.cancel'> = {
  async 'otaTask.create'({ body }, ctx) {
    return { id: await createOtaTask(ctx.ports, commandContextOf(ctx), body) };
  },
  async 'otaTask.pause'({ body }, ctx) {
    await taskCommand(ctx, body.id, { type: 'PauseOtaTask', taskId: body.id });
    return { id: body.id };
  },
  async 'otaTask.resume'({ body }, ctx) {
    await taskCommand(ctx, body.id, { type: 'ResumeOtaTask', taskId: body.id });
    return { id: body.id };
  },
  async 'otaTask.cancel'({ body }, ctx) {
    await taskCommand(ctx, body.id, { type: 'CancelOtaTask', taskId: body.id });
    return { id: body.id };
  },
};

type OtaDispatched =
  | 'StartNextOtaWave'
  | 'OfferOtaWave'
  | 'DeliverOtaOffer'
  | 'SettleOtaDevice'
  | 'CancelOtaDevices'
  | 'OtaDevicePresence'
  | 'ReportOtaProgress';

const positionOf = (result: { events: Array<{ position: string }> }) => ({ position: result.events.at(-1)?.position ?? null });

/** The rollout's steps as its process manager and the device link dispatch them; each is idempotent by its stream's state. */
export function otaDispatchers(
  ports: Pick<Ports, 'store' | 'lookups' | 'link' | 'downloadLinks'> & Partial<Pick<Ports, 'live'>>,
): Pick<CommandDispatchers, OtaDispatched> {
  // Every report appends to its device's stream, and every settled device to its task's: their states are kept between
  // commands, so that a report costs a few rows, not its stream's whole history (which grows with every report).
  const tasks = streamCache(ports.store, otaTaskDecider, 1_000);
  const devices = streamCache(ports.store, otaDeviceDecider, 20_000);
  // The task's stream is also written by the operator's routes (pause, resume, cancel): always checked fresh.
  const onTask = (metadata: DispatchMetadata, taskId: string, command: OtaTaskCommand) =>
    tasks.handle(otaTaskStream(metadata.tenantId, taskId), command, { ...metadata }, { fresh: true });
  /**
   * A device's report decides on the kept state (its session's process writes its reports); the workflow's steps check
   * first. A report is recorded without an idempotency key (`key` null): the reporter's key is new for every message,
   * so it never found a retry, while every report's key was kept in the stream's cached key set and its events'
   * metadata; a report sent again (a resend after a lost PUBACK) changes nothing on the state it already made.
   */
  // What it appends is told to the `ota.progress` listeners at once, before the projections have read it.
  const onDevice = async (metadata: DispatchMetadata, command: OtaDeviceCommand, key: string | null = metadata.idempotencyKey) => {
    const result = await devices.handle(
      otaDeviceStream(metadata.tenantId, command.taskId, command.deviceId),
      command,
      { ...metadata, idempotencyKey: key ?? undefined },
      { fresh: !command.type.startsWith('ReportOta') },
    );
    if (ports.live && result.applied) for (const event of result.events) tellOtaDeviceEvent(ports.live, event);
    return result;
  };
  const taskOf = (metadata: DispatchMetadata, taskId: string) => tasks.state(otaTaskStream(metadata.tenantId, taskId));
  /**
   * The rollout a report that names no task (ThingsBoard's `fw_state`) belongs to: the newest task whose offer to the
   * device is recorded and not settled. Its stream says so, not the read model, which may not have seen the offer yet
   * when the device answers it at once.
   */
  const runningTaskOf = async (tenantId: string, deviceId: string) => {
    const taskIds = await ports.lookups.otaTasksOfDevice(tenantId, deviceId, ['executing', 'pause', 'nonExecution']);
    for (const taskId of taskIds.toReversed()) {
      const { state } = await devices.state(otaDeviceStream(tenantId, taskId, deviceId));
      if (state.exists && !isSettled(state.status)) return taskId;
    }
    return null;
  };

  return {
    async StartNextOtaWave(command, metadata) {
      return positionOf(await onTask(metadata, command.taskId, { type: 'StartNextOtaWave', taskId: command.taskId, at: command.at }));
    },

    async OfferOtaWave(command, metadata) {
      const { state } = await taskOf(metadata, command.taskId);
      if (state.status === 'cancel') return { position: null };
      // The wave's offers are appended together, a slice at a time: the store commits each slice as a group.
      let position: string | null = null;
      const members = waveDevices(state, command.wave);
      for (let i = 0; i < members.length; i += OFFERS_AT_ONCE)
        await Promise.all(
          members.slice(i, i + OFFERS_AT_ONCE).map(async (d) => {
            const result = await onDevice(
              metadata,
              {
                type: 'OfferOtaDevice',
                taskId: command.taskId,
                deviceId: d.deviceId,
                sn: d.sn,
                wave: command.wave,
                file: state.file!,
                fromVersion: d.fromVersion,
              },
              `${metadata.idempotencyKey}:${d.deviceId}`,
            );
            position = positionOf(result).position ?? position;
          }),
        );
      return { position };
    },

    async DeliverOtaOffer(command, metadata) {
      const stream = otaDeviceStream(metadata.tenantId, command.taskId, command.deviceId);
      const { state } = await devices.state(stream);
      const device = { sn: state.sn, deviceId: command.deviceId };
      if (command.resume) {
        // The sweep resumes a paused device that is reachable again; its OtaDeviceResumed makes the workflow deliver the offer.
        if (state.status !== 'pause' || !ports.link || !(await ports.link.reachable(device))) return { position: null };
        return positionOf(await onDevice(metadata, { type: 'ResumeOtaDevice', taskId: command.taskId, deviceId: command.deviceId }));
      }
      if (state.status !== 'executing' || !state.file) return { position: null };
      if (ports.link && (await ports.link.reachable(device))) {
        const f = state.file;
        const link = ports.downloadLinks?.issue({ tenantId: metadata.tenantId, taskId: command.taskId, ...device }) ?? null;
        await ports.link.send(
          device,
          {
            messageId: `ota-${command.taskId}`,
            kind: 'service',
            identifier: OTA_OFFER_SERVICE,
            params: {
              taskId: command.taskId,
              fileId: f.fileId,
              name: f.name,
              fileType: f.fileType,
              version: f.version,
              size: f.size,
              sha256: f.sha256,
              url: link?.url ?? null,
              urlExpiresAt: link?.expiresAt ?? null,
            } satisfies OtaOffer,
          },
          null,
        );
        return { position: null };
      }
      // Not reachable now: paused until it reconnects (never left executing with nobody to execute it).
      return positionOf(await onDevice(metadata, { type: 'PauseOtaDevice', taskId: command.taskId, deviceId: command.deviceId }));
    },

    async SettleOtaDevice(command, metadata) {
      return positionOf(
        await onTask(metadata, command.taskId, {
          type: 'SettleOtaDevice',
          taskId: command.taskId,
          deviceId: command.deviceId,
          outcome: command.outcome,
          at: new Date().toISOString(),
        }),
      );
    },

    async CancelOtaDevices(command, metadata) {
      const { state } = await taskOf(metadata, command.taskId);
      // Appended together, a slice at a time, as a wave's offers are.
      let position: string | null = null;
      const open = [...state.waveOf.keys()].filter((deviceId) => !state.settled.has(deviceId));
      for (let i = 0; i < open.length; i += OFFERS_AT_ONCE)
        await Promise.all(
          open.slice(i, i + OFFERS_AT_ONCE).map(async (deviceId) => {
            const result = await onDevice(
              metadata,
              { type: 'CancelOtaDevice', taskId: command.taskId, deviceId },
              `${metadata.idempotencyKey}:${deviceId}`,
            );
            position = positionOf(result).position ?? position;
          }),
        );
      return { position };
    },

    async OtaDevicePresence(command, metadata) {
      // The read model may not have seen the offer yet (its row still says nonExecution): such a task is asked too, and
      // the device's own stream decides (a device never offered, or not executing, is left alone).
      const statuses = command.online ? (['pause'] as const) : (['executing', 'nonExecution'] as const);
      const taskIds = await ports.lookups.otaTasksOfDevice(metadata.tenantId, command.deviceId, statuses);
      let position: string | null = null;
      for (const taskId of taskIds) {
        const type = command.online ? 'ResumeOtaDevice' : 'PauseOtaDevice';
        const result = await onDevice(metadata, { type, taskId, deviceId: command.deviceId }, `${metadata.idempotencyKey}:${taskId}`);
        position = positionOf(result).position ?? position;
      }
      return { position };
    },

    async ReportOtaProgress(command, metadata) {
      const { deviceId, report } = command;
      const taskId = command.taskId ?? (await runningTaskOf(metadata.tenantId, deviceId));
      if (!taskId) return { position: null };
      const device: OtaDeviceCommand =
        'stage' in report
          ? { type: 'ReportOtaProgress', taskId, deviceId, stage: report.stage, percent: report.percent }
          : 'done' in report
            ? { type: 'ReportOtaDone', taskId, deviceId, version: report.version }
            : { type: 'ReportOtaFailed', taskId, deviceId, reason: report.failed };
      return positionOf(await onDevice(metadata, device, null));
    },
  };
}
