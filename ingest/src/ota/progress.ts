import type { Dispatch } from '@iot/contracts/ports/dispatch.ts';
import type { DeviceRef } from '../registry.ts';
import { otaProgressMessage, reportOfFwState, reportOfProgress, thingsboardFwTelemetry, type OtaReport } from '@iot/contracts';

/** A device's report on its OTA topic, validated; null when it is not one. */
export function otaReportOf(body: unknown): OtaReport | null {
  const parsed = otaProgressMessage.safeParse(body);
  return parsed.success ? Object.freeze(reportOfProgress(parsed.data)) : null;
}

/** Distinct payload texts whose reports are kept: a firmware sends a handful of stages x 101 percents, byte for byte the same. */
const KNOWN_PAYLOADS = 1_024;

/**
 * A device's report from its OTA topic's payload text: the JSON parse and the schema's check run once per distinct text
 * and the report is kept (frozen, shared by every device that sent the same bytes), because at thousands of reports a
 * second they were a visible share of the progress path's CPU (issue 21) while the texts repeat. Null when it is not a
 * report, false when it is not JSON (both kept too: a device that sends the same wrong text again is refused as cheaply).
 */
export function createOtaReportReader() {
  const known = new Map<string, OtaReport | null | false>();
  return (text: string): OtaReport | null | false => {
    const kept = known.get(text);
    if (kept !== undefined) return kept;
    let report: OtaReport | null | false;
    try {
      report = otaReportOf(JSON.parse(text));
    } catch {
      report = false;
    }
    // The oldest text goes: a device whose payloads never repeat (a timestamp in each) only costs the map's churn.
    if (known.size >= KNOWN_PAYLOADS) known.delete(known.keys().next().value!);
    known.set(text, report);
    return report;
  };
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

/** Two reports of one stage that each carry a percent: the later says all the earlier says (only the percent moved). */
const onlyPercentMoved = (earlier: OtaReport, later: OtaReport) =>
  'stage' in earlier && 'stage' in later && earlier.stage === later.stage && earlier.percent !== null && later.percent !== null;

interface Pending {
  device: DeviceRef;
  taskId: string | null;
  report: OtaReport;
  /** Every message this report answers for: settled together once it is recorded (or not). */
  waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }>;
}

/**
 * Turns reports into commands through the dispatch port, one device's in the order it sent them (a late "downloading"
 * never lands after its "done"); different devices' go in parallel. The returned promise settles once the report is
 * recorded, and rejects when it could not be: the intake acknowledges the message only then, so a report the platform
 * failed to record is sent again by the device instead of being lost.
 *
 * While a device's report is being recorded, its next ones wait; a waiting report that only moves the percent of the
 * stage of the report before it (downloading 40 after downloading 30) takes that one's place, and both messages are
 * acknowledged when it is recorded: one event instead of two, and a device that reports faster than the store commits
 * never builds a queue. Every change of stage, done and failed stays its own event (auditors replay them).
 */
export function createOtaReporter(dispatch: Dispatch, onError: (err: unknown) => void) {
  /** Per device, the reports waiting behind the one being recorded (present while one is being recorded). */
  const queues = new Map<string, Pending[]>();
  let seq = 0;

  const record = (next: Pending) => {
    const key = `ota:${next.device.deviceId}:${Date.now()}:${seq++}`;
    return dispatch(
      { type: 'ReportOtaProgress', deviceId: next.device.deviceId, taskId: next.taskId, report: next.report },
      {
        tenantId: next.device.tenantId,
        actor: { kind: 'device', id: next.device.deviceId },
        correlationId: key,
        causationId: null,
        idempotencyKey: key,
      },
    );
  };

  /** Records the device's reports in turn until none waits; the device's queue goes with the last. */
  const drain = async (deviceId: string, first: Pending) => {
    const queue = queues.get(deviceId)!;
    for (let next: Pending | undefined = first; next; next = queue.shift()) {
      try {
        await record(next);
        for (const w of next.waiters) w.resolve();
      } catch (err) {
        // The device's next report goes on, recorded or not.
        onError(err);
        for (const w of next.waiters) w.reject(err);
      }
    }
    queues.delete(deviceId);
  };

  return (device: DeviceRef, taskId: string | null, report: OtaReport): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const waiter = { resolve, reject };
      const queue = queues.get(device.deviceId);
      if (!queue) {
        queues.set(device.deviceId, []);
        void drain(device.deviceId, { device, taskId, report, waiters: [waiter] });
        return;
      }
      const last = queue.at(-1);
      if (last && last.taskId === taskId && onlyPercentMoved(last.report, report)) {
        last.report = report;
        last.waiters.push(waiter);
      } else queue.push({ device, taskId, report, waiters: [waiter] });
    });
}
