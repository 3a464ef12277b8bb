import type { DeviceEvent, OtaDeviceEvent, OtaTaskEvent } from '@iot/contracts';
import type { DispatchedCommand, DispatchMetadata } from '@iot/contracts/ports/dispatch.ts';
import type { Workflow } from '../tenant/onboarding.ts';

type RolloutEvent = OtaTaskEvent | OtaDeviceEvent | DeviceEvent;

/**
 * The rollout's process manager: each event of a task, of its devices, or of a device's presence issues the next
 * idempotent step. Its state is the events themselves (task and device streams), so a platform restart resumes
 * where it stopped with every device's state intact; a wave's pause is kept by the ticker (infra/src/wiring/ota.ts).
 */
export const otaRollout: Workflow<RolloutEvent> = {
  name: 'workflow-ota-rollout',
  handles: [
    'OtaTaskCreated',
    'OtaTaskResumed',
    'OtaWaveStarted',
    'OtaTaskCancelled',
    'OtaDeviceOffered',
    'OtaDeviceResumed',
    'OtaDeviceSucceeded',
    'OtaDeviceFailed',
    'OtaDeviceCancelled',
    'DeviceWentOnline',
    'DeviceWentOffline',
  ],
  async react(event, { dispatch, afterStep }) {
    const step = async (name: string, command: DispatchedCommand) => {
      const metadata: DispatchMetadata = {
        tenantId: event.metadata.tenantId,
        actor: event.metadata.actor,
        correlationId: event.metadata.correlationId,
        causationId: event.id,
        idempotencyKey: `ota:${name}:${event.id}`,
      };
      await dispatch(command, metadata);
      await afterStep(name);
    };
    const at = event.metadata.occurredAt;
    switch (event.type) {
      case 'OtaTaskCreated':
      case 'OtaTaskResumed':
        return step('startWave', { type: 'StartNextOtaWave', taskId: event.data.taskId, at });
      case 'OtaWaveStarted':
        return step('offerWave', { type: 'OfferOtaWave', taskId: event.data.taskId, wave: event.data.wave });
      case 'OtaTaskCancelled':
        return step('cancelDevices', { type: 'CancelOtaDevices', taskId: event.data.taskId });
      case 'OtaDeviceOffered':
      case 'OtaDeviceResumed':
        return step('deliver', { type: 'DeliverOtaOffer', taskId: event.data.taskId, deviceId: event.data.deviceId });
      case 'OtaDeviceSucceeded':
      case 'OtaDeviceFailed':
      case 'OtaDeviceCancelled': {
        const outcome = event.type === 'OtaDeviceSucceeded' ? 'success' : event.type === 'OtaDeviceFailed' ? 'fail' : 'cancel';
        return step('settle', { type: 'SettleOtaDevice', taskId: event.data.taskId, deviceId: event.data.deviceId, outcome });
      }
      case 'DeviceWentOnline':
      case 'DeviceWentOffline':
        return step('presence', { type: 'OtaDevicePresence', deviceId: event.data.deviceId, online: event.type === 'DeviceWentOnline' });
      default:
        return;
    }
  },
};
