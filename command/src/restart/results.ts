import type { DeviceEvent } from '@iot/contracts';
import { restartTaskOfMessage } from '@iot/contracts';
import type { Workflow } from '../tenant/onboarding.ts';

/**
 * A device's reply to a restart task's command (recorded on the device's stream by the device-command path) becomes
 * the task's result for that device. A restart task's other steps are the ticker's (infra/src/wiring/restart.ts).
 */
export const restartResults: Workflow<DeviceEvent> = {
  name: 'workflow-restart-results',
  handles: ['DeviceCommandReplied'],
  async react(event, { dispatch, afterStep }) {
    if (event.type !== 'DeviceCommandReplied' || !restartTaskOfMessage(event.data.messageId)) return;
    await dispatch(
      { type: 'RecordRestartReply', deviceId: event.data.deviceId, messageId: event.data.messageId, output: event.data.output },
      {
        tenantId: event.metadata.tenantId,
        actor: event.metadata.actor,
        correlationId: event.metadata.correlationId,
        causationId: event.id,
        idempotencyKey: `restart:reply:${event.id}`,
      },
    );
    await afterStep('result');
  },
};
