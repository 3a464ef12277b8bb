import type { DomainEvent } from '../event.ts';
import type { OtaFileRef, OtaOutcome, OtaStage, OtaTarget, OtaWaves } from './model.ts';

/** A device a task targets, frozen at creation: the plan survives later changes to the fleet. */
export interface OtaPlannedDevice {
  deviceId: string;
  sn: string;
  fromVersion: string | null;
}

/** The file as a task freezes it: what the screens show, and where its bytes are (the FileStore key, never shown). */
export type OtaTaskFile = OtaFileRef & { storageKey: string };

/**
 * What can happen to an OTA or configuration rollout (stream `otaTask-<tenant>.<taskId>`): the plan, its waves, each
 * device's settled outcome as the task counts it, the failure-rate stop, and an operator's pause, resume and cancel.
 */
export type OtaTaskEvent =
  | DomainEvent<
      'OtaTaskCreated',
      { taskId: string; name: string; file: OtaTaskFile; target: OtaTarget; waves: OtaWaves; devices: OtaPlannedDevice[] }
    >
  | DomainEvent<'OtaWaveStarted', { taskId: string; wave: number; deviceIds: string[] }>
  | DomainEvent<'OtaTaskDeviceSettled', { taskId: string; deviceId: string; wave: number; outcome: OtaOutcome }>
  /** A wave's devices all settled; `nextWaveAt` is when the next one may start (null: it was the last, or the task stopped). */
  | DomainEvent<'OtaWaveCompleted', { taskId: string; wave: number; failed: number; total: number; nextWaveAt: string | null }>
  /** The failure-rate stop: the task ends with status fail and no further wave starts. */
  | DomainEvent<'OtaTaskHalted', { taskId: string; wave: number; failurePercent: number }>
  | DomainEvent<'OtaTaskPaused', { taskId: string }>
  | DomainEvent<'OtaTaskResumed', { taskId: string }>
  | DomainEvent<'OtaTaskCancelled', { taskId: string }>
  | DomainEvent<'OtaTaskFinished', { taskId: string; status: 'success' | 'fail' }>;
export type OtaTaskEventType = OtaTaskEvent['type'];

/**
 * What happens to one device in one task (stream `otaDevice-<tenant>.<taskId>.<deviceId>`): offered in its wave,
 * its progress as it reports it, paused while offline and resumed on reconnect, and how it ended.
 */
export type OtaDeviceEvent =
  | DomainEvent<
      'OtaDeviceOffered',
      { taskId: string; deviceId: string; sn: string; wave: number; file: OtaFileRef; fromVersion: string | null }
    >
  | DomainEvent<'OtaDeviceProgressed', { taskId: string; deviceId: string; stage: OtaStage; percent: number | null }>
  | DomainEvent<'OtaDevicePaused', { taskId: string; deviceId: string }>
  | DomainEvent<'OtaDeviceResumed', { taskId: string; deviceId: string }>
  | DomainEvent<'OtaDeviceSucceeded', { taskId: string; deviceId: string; version: string | null }>
  | DomainEvent<'OtaDeviceFailed', { taskId: string; deviceId: string; reason: string }>
  | DomainEvent<'OtaDeviceCancelled', { taskId: string; deviceId: string }>;
export type OtaDeviceEventType = OtaDeviceEvent['type'];
