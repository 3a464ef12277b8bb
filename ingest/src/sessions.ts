import type { DeviceEvent, TenantEvent } from '@iot/contracts';
import type { StoredEventOf } from '@iot/contracts/ports/event-store.ts';
import type { Intake } from './intake.ts';
import type { Presence } from './presence.ts';
import type { DeviceRegistry } from './registry.ts';

export interface DeviceChangesOptions {
  registry: DeviceRegistry;
  intake: Pick<Intake, 'cut' | 'update'>;
  presence: Pick<Presence, 'gone'>;
  /** Ends a session now (its device lost the right to it); embedded broker only: an external one cuts its own (broker accounts). */
  disconnect?: (clientId: string) => Promise<boolean>;
  logger: { error(context: object, message: string): void };
}

/**
 * Whether a device event changes what the registry keeps of its device (a record over every type, so that a new one
 * is decided here): the follower reads only those from the log. A created device has nothing kept yet (an SN asked
 * for before it existed is a miss the registry keeps a moment only); presence and commands change nothing kept.
 */
const changesKept: Record<DeviceEvent['type'], boolean> = {
  DeviceCreated: false,
  DeviceUpdated: true,
  DeviceMoved: true,
  DeviceGatewayBound: true,
  DeviceSecretRotated: true,
  DeviceEnabled: true,
  DeviceDisabled: true,
  DeviceTemplateApplied: true,
  DeviceModelUpgraded: true,
  DeviceDeleted: true,
  DeviceWentOnline: false,
  DeviceWentOffline: false,
  DeviceCommandSent: false,
  DeviceCommandReplied: false,
  DeviceCommandFailed: false,
  DeviceDesiredSet: false,
};

/** The types `followDeviceChanges` acts on: what its subscription asks the log for. */
export const followedDeviceChanges: readonly string[] = [
  'TenantStopped',
  'TenantStarted',
  ...Object.entries(changesKept)
    .filter(([, changes]) => changes)
    .map(([type]) => type),
];
const followed = new Set(followedDeviceChanges);

/**
 * A device's sessions last as long as its right to them: the log's device and tenant events, followed, drop what the
 * registry keeps of a changed device and cut the sessions of one that lost its rights (disabled, deleted, re-keyed,
 * tenant stopped).
 */
export function followDeviceChanges(options: DeviceChangesOptions) {
  const { registry, intake, presence, logger } = options;
  /**
   * Devices that lost the right to their sessions: each session here ends at once (the broker disconnects it, what
   * it still sends is refused), and every such device the log shows online (over an external broker, whose own
   * accounts cut its sessions; HTTP devices; sub-devices) is recorded offline now.
   */
  const cutOff = async (lost: { tenantId: string; deviceId?: string }) => {
    const ended = intake.cut((d) => d.tenantId === lost.tenantId && (!lost.deviceId || d.deviceId === lost.deviceId));
    await Promise.all(
      ended.map(({ sessionId }) =>
        options.disconnect?.(sessionId).catch((err: unknown) => logger.error({ err, sessionId }, 'session not disconnected')),
      ),
    );
    const offline = new Map(ended.map(({ device }) => [device.deviceId, device]));
    // A gateway's sub-devices are reached through it: cut with it.
    for (const device of await registry.recordedOnline({ tenantId: lost.tenantId }))
      if (!lost.deviceId || device.deviceId === lost.deviceId || device.gatewayId === lost.deviceId) offline.set(device.deviceId, device);
    for (const device of offline.values()) presence.gone(device);
  };
  /** Follows the log: what the registry keeps of a changed device is dropped; the sessions of a device that lost its rights are cut. */
  return async (event: StoredEventOf<DeviceEvent | TenantEvent>) => {
    if (event.type === 'TenantStopped' || event.type === 'TenantStarted') {
      registry.learnTenant(event.data.tenantId, event.type === 'TenantStarted');
      registry.forget();
      if (event.type === 'TenantStopped') await cutOff({ tenantId: event.data.tenantId });
      return;
    }
    if (!event.streamName.startsWith('device-') || !followed.has(event.type)) return;
    const deviceId = event.streamName.slice(event.streamName.indexOf('.') + 1);
    const lost = { tenantId: event.metadata.tenantId, deviceId };
    registry.forget(deviceId);
    switch (event.type) {
      case 'DeviceDisabled':
        registry.learnDevice(deviceId, { enabled: false });
        return cutOff(lost);
      case 'DeviceEnabled':
        return registry.learnDevice(deviceId, { enabled: true });
      case 'DeviceDeleted':
        registry.learnDevice(deviceId, { deleted: true });
        return cutOff(lost);
      case 'DeviceSecretRotated':
        registry.learnDevice(deviceId, { secretHash: event.data.secretHash });
        return cutOff(lost);
      case 'DeviceMoved':
        return intake.update(deviceId, { groupId: event.data.groupId });
      case 'DeviceGatewayBound':
        return intake.update(deviceId, { gatewayId: event.data.gatewayId });
      case 'DeviceUpdated':
        return intake.update(deviceId, { name: event.data.name });
      case 'DeviceModelUpgraded':
        return intake.update(deviceId, { modelVersion: event.data.modelVersion });
      default:
        return;
    }
  };
}

/**
 * Over an external broker: devices no process heard from for the heartbeat time-out go offline (every process
 * looks; the log records a state a device is already in only once). Returns what stops it.
 */
export function sweepSilentDevices(options: {
  registry: Pick<DeviceRegistry, 'silentOnline'>;
  presence: Pick<Presence, 'heartbeatTimeoutMs' | 'timedOut'>;
  logger: { error(context: object, message: string): void };
}) {
  const { registry, presence, logger } = options;
  let sweeping = false;
  const sweep = async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      for (const device of await registry.silentOnline(presence.heartbeatTimeoutMs)) presence.timedOut(device);
    } catch (err) {
      logger.error({ err }, 'silent devices not timed out');
    } finally {
      sweeping = false;
    }
  };
  const sweeper = setInterval(() => void sweep(), Math.max(200, Math.min(presence.heartbeatTimeoutMs / 4, 30_000)));
  sweeper.unref();
  return () => clearInterval(sweeper);
}
