import type { AlarmRaisedData } from '../alarm/events.ts';
import type { Actor } from '../event.ts';
import type { OtaReport } from '../ota/device-messages.ts';
import type { SceneRunFinishedData, SceneRunStartedData } from '../scene/events.ts';

/** Who a dispatched command acts for, and what caused it (the event a workflow or reactor reacted to). */
export interface DispatchMetadata {
  tenantId: string;
  actor: Actor;
  correlationId: string;
  causationId: string | null;
  /** A step dispatched twice with the same key applies once: what makes a workflow's steps idempotent. */
  idempotencyKey: string;
  ip?: string;
}

/** Each command that code reacting to events may issue, by type: its payload. */
export interface DispatchedPayloads {
  // The tenant onboarding workflow's steps (command/src/tenant/onboarding.ts).
  CreateTenantAdmin: { tenantId: string; adminUserId: string };
  ActivateTenantAdminCredential: { tenantId: string; adminUserId: string };
  ProvisionTenant: { tenantId: string; adminUserId: string };
  NotifyTenantAudit: { tenantId: string; approved: boolean; reason: string | null };
  MarkTenantOnboarded: { tenantId: string; adminUserId: string };
  // What the intake learns of a device (ingest/): presence, a back-online device's desired values, a reply nobody waited for.
  SetDevicePresence: { deviceId: string; online: boolean; at: string; reason?: 'disconnect' | 'timeout' };
  ResendDesired: { deviceId: string; before?: string };
  RecordDeviceReply: { deviceId: string; messageId: string; output: unknown };
  // The alarm reactor on the telemetry (projections/src/alarm/reactor.ts).
  RaiseAlarm: { alarm: Omit<AlarmRaisedData, 'alarmId'> };
  RepeatAlarm: { alarmId: string; count: number; value: number | null; at: string };
  ClearAlarm: { alarmId: string; value: number | null; at: string };
  // What a rule chain's action nodes do (issue 19, projections/src/rule/engine.ts).
  /** Clears the active alarm of a device raised under `ruleId` (a chain's createAlarm node), if there is one. */
  ClearRuleAlarm: { deviceId: string; ruleId: string; value: number | null; at: string };
  /** A command to a device, sent without waiting for its reply (its reply is recorded when it comes). */
  SendDeviceCommand: { deviceId: string; kind: 'property' | 'service'; identifier: string; params: Record<string, unknown> };
  // The OTA rollout's process manager (command/src/ota/rollout.ts) and what devices report of it (ingest/src/ota/).
  StartNextOtaWave: { taskId: string; at: string };
  /** Offers each device of a started wave the file (one stream per device). */
  OfferOtaWave: { taskId: string; wave: number };
  /**
   * Sends an offered (or resumed) device its offer; one that cannot be reached now is paused. `resume`: a paused
   * device found reachable again is resumed first (the ticker's sweep).
   */
  DeliverOtaOffer: { taskId: string; deviceId: string; resume?: boolean };
  SettleOtaDevice: { taskId: string; deviceId: string; outcome: 'success' | 'fail' | 'cancel' };
  CancelOtaDevices: { taskId: string };
  /** A device went offline (pause its rollouts) or came back (resume them). */
  OtaDevicePresence: { deviceId: string; online: boolean };
  // Restart tasks (command/src/restart/): the ticker starts a task at its task time, retries paused devices, expires it.
  StartRestartTask: { taskId: string; at: string };
  RetryRestartDevice: { taskId: string; deviceId: string; at: string };
  ExpireRestartTask: { taskId: string; at: string };
  /** A device's reply to a command: a restart task's acknowledgement when its message id is one. */
  RecordRestartReply: { deviceId: string; messageId: string; output: unknown };
  /**
   * A device's report of its upgrade: a stage with percent, done with its new version, or failed with a reason.
   * `taskId` null: ThingsBoard's `fw_state`, which names no task (the device's running rollout is meant).
   */
  ReportOtaProgress: { deviceId: string; taskId: string | null; report: OtaReport };
  // Scene linkage (issue 19, projections/src/scene/): a run claimed, then its outcome; a scene enabled or stopped by another.
  /** Starts a run on a stream of its own that must not exist: `id` is absent when another process started this run first. */
  StartSceneRun: SceneRunStartedData;
  FinishSceneRun: SceneRunFinishedData;
  SetSceneStatus: { sceneId: string; status: 'enabled' | 'stopped' };
}
export type DispatchedType = keyof DispatchedPayloads;

/** A command as code that reacts issues it: its type names the handler, the rest is that type's payload. */
export type DispatchedCommand<K extends DispatchedType = DispatchedType> = { [T in K]: { type: T } & DispatchedPayloads[T] }[K];

export interface DispatchResult {
  /** Position of the last event appended (or of the earlier try with the same key), null when nothing changed. */
  position: string | null;
  /** The aggregate the command made or found (an alarm raised, or the active one that was already there). */
  id?: string;
}

/**
 * How workflows, reactors and bus consumers issue commands without importing `command/`
 * (ARCHITECTURE.md "Layout"): infra/ binds it to the command handlers.
 */
export type Dispatch = (command: DispatchedCommand, metadata: DispatchMetadata) => Promise<DispatchResult>;

/** The command side's handler of each dispatched command: what infra/ binds the port to. */
export type CommandDispatchers = {
  [K in DispatchedType]: (command: DispatchedCommand<K>, metadata: DispatchMetadata) => Promise<DispatchResult>;
};
