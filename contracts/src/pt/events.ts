import type { DomainEvent } from '../event.ts';
import type { PtBatchFields, PtCheck, PtConfigFields, PtIccidFields, PtReportKind } from './model.ts';

/**
 * A test configuration (spec §3 PT config): stream `ptConfig-<tenant>.<id>`. Its password is a hash beside the log;
 * the events say only whether one is set. Users are bound and unbound by events of their own (the binding screen).
 */
export type PtConfigEvent =
  | DomainEvent<'PtConfigCreated', PtConfigFields & { configId: string }>
  | DomainEvent<'PtConfigUpdated', PtConfigFields & { configId: string }>
  | DomainEvent<'PtConfigDeleted', { configId: string }>
  | DomainEvent<'PtUsersBound', { configId: string; userIds: string[] }>
  | DomainEvent<'PtUsersUnbound', { configId: string; userIds: string[] }>;

/** A production batch: stream `ptBatch-<tenant>.<id>`. */
export type PtBatchEvent =
  | DomainEvent<'PtBatchCreated', PtBatchFields & { batchId: string }>
  | DomainEvent<'PtBatchUpdated', PtBatchFields & { batchId: string }>
  | DomainEvent<'PtBatchDeleted', { batchId: string }>;

/** An imported ICCID (a SIM card), its id the ICCID itself: stream `ptIccid-<tenant>.<iccid>`; paired with one device at most. */
export type PtIccidEvent =
  | DomainEvent<'PtIccidAdded', PtIccidFields>
  | DomainEvent<'PtIccidAssigned', { iccid: string; deviceId: string; sn: string }>
  | DomainEvent<'PtIccidDeleted', { iccid: string }>;

/** What every step of a device's test carries: the device, its configuration, and the product as the records show it. */
export interface PtStepBase {
  deviceId: string;
  configId: string;
  sn: string;
  productName: string;
  productCode: string;
  /** The username of whoever took the step (the metadata's actor is their id). */
  operator: string;
}
/** A test run: what was read, each value checked against the thing model. */
export interface PtRun {
  passed: boolean;
  checks: PtCheck[];
  testedAt: string;
}
/** A report as it was generated: stored whole in its event, so that it reads the same however the device changes later. */
export interface PtReportSnapshot extends PtRun {
  reportId: string;
  kind: PtReportKind;
  alias: string;
  deviceName: string;
  remark: string | null;
}

/** A device's product test (spec §4): stream `ptDevice-<tenant>.<deviceId>`, one event per step with who (`operator`) and when. */
export type PtDeviceEvent =
  | DomainEvent<'PtTested', PtStepBase & PtRun>
  | DomainEvent<'PtReportGenerated', PtStepBase & PtReportSnapshot>
  | DomainEvent<'PtSubmitted', PtStepBase & { toQc: boolean }>
  | DomainEvent<'PtReturnedToProduction', PtStepBase & { reason: string | null }>
  | DomainEvent<'PtUpgraded', PtStepBase & { fileId: string }>
  | DomainEvent<'PtSnSet', PtStepBase & { productSn: string; iccid: string | null }>
  | DomainEvent<'PtQcTested', PtStepBase & PtRun & { remark: string | null }>
  | DomainEvent<'PtQcFinished', PtStepBase & PtReportSnapshot>
  | DomainEvent<'PtQcSubmitted', PtStepBase>
  | DomainEvent<'PtQcReturned', PtStepBase & { reason: string | null }>;

export type PtAreaEvent = PtConfigEvent | PtBatchEvent | PtIccidEvent | PtDeviceEvent;
