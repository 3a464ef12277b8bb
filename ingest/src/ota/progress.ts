import type { Dispatch } from '@iot/contracts/ports/dispatch.ts';
import type { DeviceRef } from '../registry.ts';
import { otaProgressMessage, reportOfFwState, reportOfProgress, thingsboardFwTelemetry, type OtaReport } from '@iot/contracts';

/** A device's report on its OTA topic, validated; null when it is not one. */
export function otaReportOf(body: unknown): OtaReport | null {
  const parsed = otaProgressMessage.safeParse(body);
  return parsed.success ? reportOfProgress(parsed.data) : null;
}

const FW_KEYS = ['fw_state', 'current_fw_version', 'current_fw_title', 'fw_error'];

/**
 * ThingsBoard's firmware state in a telemetry message (`{"fw_state": "DOWNLOADING", ...}`): the report, and the rest of
 * the message's values, which are the device's telemetry as usual. Null when the message carries no `fw_state`.
 */
export function fwStateOf(body: unknown): { report: OtaReport; rest: Record<string, unknown> } | null {
  if (!body || typeof body !== 'object' || Array.isArray(body) || !('fw_state' in body)) return null;
  const parsed = thingsboardFwTelemetry.safeParse(body);
  if (!parsed.success) return null;
  const rest = Object.fromEntries(Object.entries(body).filter(([k]) => !FW_KEYS.includes(k)));
  return { report: reportOfFwState(parsed.data), rest };
}

/**
 * Turns reports into commands through the dispatch port, one device's in the order it sent them (a late "downloading"
 * never lands after its "done"); different devices' go in parallel. The returned promise settles once the report is
 * recorded, and rejects when it could not be: the intake acknowledges the message only then, so a report the platform
 * failed to record is sent again by the device instead of being lost.
 */
export function createOtaReporter(dispatch: Dispatch, onError: (err: unknown) => void) {
  const queues = new Map<string, Promise<unknown>>();
  let seq = 0;
  return (device: DeviceRef, taskId: string | null, report: OtaReport): Promise<void> => {
    const key = `ota:${device.deviceId}:${Date.now()}:${seq++}`;
    const run = (queues.get(device.deviceId) ?? Promise.resolve()).then(async () => {
      await dispatch(
        { type: 'ReportOtaProgress', deviceId: device.deviceId, taskId, report },
        {
          tenantId: device.tenantId,
          actor: { kind: 'device', id: device.deviceId },
          correlationId: key,
          causationId: null,
          idempotencyKey: key,
        },
      );
    });
    // The device's next report waits for this one to settle, recorded or not.
    const settled = run.catch(onError);
    queues.set(device.deviceId, settled);
    void settled.then(() => {
      if (queues.get(device.deviceId) === settled) queues.delete(device.deviceId);
    });
    return run;
  };
}
