import {
  DomainError,
  type PtBatchEvent,
  type PtBatchFields,
  type PtConfigEvent,
  type PtConfigFields,
  type PtDeviceEvent,
  type PtIccidEvent,
  type PtIccidFields,
  type PtReportSnapshot,
  type PtRun,
  type PtStatus,
  type PtStepBase,
} from '@iot/contracts';
import { sameValue, unreachable, type Decider } from '../decider.ts';
import { recordDecider, type RecordDecider } from '../shared/record-decider.ts';

// ---------------------------------------------------------------- test configurations

export type PtConfigCommand =
  | { type: 'Create'; id: string; fields: PtConfigFields }
  | { type: 'Update'; id: string; fields: PtConfigFields }
  | { type: 'Delete'; id: string }
  | { type: 'Bind'; id: string; userIds: string[] }
  | { type: 'Unbind'; id: string; userIds: string[] };
export interface PtConfigState {
  exists: boolean;
  deleted: boolean;
  fields: PtConfigFields | null;
  boundUserIds: string[];
}

/** A test configuration: created, edited, deleted; users bound and unbound (binding one already bound appends nothing). */
export const ptConfigDecider: Decider<PtConfigCommand, PtConfigEvent, PtConfigState> = {
  initialState: { exists: false, deleted: false, fields: null, boundUserIds: [] },
  evolve(state, event) {
    switch (event.type) {
      case 'PtConfigCreated':
      case 'PtConfigUpdated': {
        const { configId: _id, ...fields } = event.data;
        return { ...state, exists: true, deleted: false, fields };
      }
      case 'PtConfigDeleted':
        return { ...state, deleted: true };
      case 'PtUsersBound':
        return { ...state, boundUserIds: [...state.boundUserIds, ...event.data.userIds.filter((u) => !state.boundUserIds.includes(u))] };
      case 'PtUsersUnbound':
        return { ...state, boundUserIds: state.boundUserIds.filter((u) => !event.data.userIds.includes(u)) };
      default:
        return state;
    }
  },
  decide(command, state) {
    if (command.type === 'Create') {
      if (state.exists) throw new DomainError('CONFLICT');
      return [{ type: 'PtConfigCreated', data: { configId: command.id, ...command.fields } }];
    }
    if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND');
    switch (command.type) {
      case 'Update':
        if (sameValue(command.fields, state.fields)) return [];
        return [{ type: 'PtConfigUpdated', data: { configId: command.id, ...command.fields } }];
      case 'Delete':
        return [{ type: 'PtConfigDeleted', data: { configId: command.id } }];
      case 'Bind': {
        const userIds = [...new Set(command.userIds)].filter((u) => !state.boundUserIds.includes(u));
        return userIds.length ? [{ type: 'PtUsersBound', data: { configId: command.id, userIds } }] : [];
      }
      case 'Unbind': {
        const userIds = [...new Set(command.userIds)].filter((u) => state.boundUserIds.includes(u));
        return userIds.length ? [{ type: 'PtUsersUnbound', data: { configId: command.id, userIds } }] : [];
      }
      default:
        return unreachable(command);
    }
  },
};

// ---------------------------------------------------------------- batches

export const ptBatchDecider = recordDecider<PtBatchFields>()(
  { created: 'PtBatchCreated', updated: 'PtBatchUpdated', deleted: 'PtBatchDeleted' },
  'batchId',
) satisfies RecordDecider<PtBatchFields, PtBatchEvent>;

// ---------------------------------------------------------------- ICCIDs

export type PtIccidCommand =
  | { type: 'Add'; fields: PtIccidFields }
  | { type: 'Assign'; iccid: string; deviceId: string; sn: string }
  | { type: 'Delete'; iccid: string };
export interface PtIccidState {
  exists: boolean;
  deviceId: string | null;
}

/** An ICCID: imported once (again after a delete), paired with one device, deleted unless paired. */
export const ptIccidDecider: Decider<PtIccidCommand, PtIccidEvent, PtIccidState> = {
  initialState: { exists: false, deviceId: null },
  evolve(state, event) {
    switch (event.type) {
      case 'PtIccidAdded':
        return { exists: true, deviceId: null };
      case 'PtIccidAssigned':
        return { ...state, deviceId: event.data.deviceId };
      case 'PtIccidDeleted':
        return { exists: false, deviceId: null };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'Add':
        if (state.exists) throw new DomainError('PT_ICCID_EXISTS');
        return [{ type: 'PtIccidAdded', data: command.fields }];
      case 'Assign':
        if (!state.exists || (state.deviceId && state.deviceId !== command.deviceId)) throw new DomainError('PT_ICCID_UNKNOWN');
        if (state.deviceId === command.deviceId) return [];
        return [{ type: 'PtIccidAssigned', data: { iccid: command.iccid, deviceId: command.deviceId, sn: command.sn } }];
      case 'Delete':
        if (!state.exists) throw new DomainError('NOT_FOUND');
        if (state.deviceId) throw new DomainError('PT_ICCID_IN_USE');
        return [{ type: 'PtIccidDeleted', data: { iccid: command.iccid } }];
      default:
        return unreachable(command);
    }
  },
};

// ---------------------------------------------------------------- a device's test (spec §4 "Product test flow")

export type PtDeviceCommand =
  | { type: 'Test'; base: PtStepBase; run: PtRun }
  | { type: 'GenerateReport'; base: PtStepBase; report: Omit<PtReportSnapshot, 'kind' | 'passed' | 'checks' | 'testedAt'> }
  | { type: 'Submit'; base: PtStepBase; toQc: boolean }
  | { type: 'ReturnToProduction'; base: PtStepBase; reason: string | null }
  | { type: 'Upgrade'; base: PtStepBase; fileId: string }
  | { type: 'SetSn'; base: PtStepBase; productSn: string; iccid: string | null }
  | { type: 'QcTest'; base: PtStepBase; run: PtRun; remark: string | null }
  | { type: 'QcFinish'; base: PtStepBase; report: Omit<PtReportSnapshot, 'kind' | 'passed' | 'checks' | 'testedAt'> }
  | { type: 'QcSubmit'; base: PtStepBase }
  | { type: 'QcReturn'; base: PtStepBase; reason: string | null };

export interface PtDeviceState {
  status: PtStatus;
  /** The last run of the stage the device is in (production or QC). */
  run: PtRun | null;
  remark: string | null;
  productSn: string | null;
}

/** The states each step is taken from: anything else is refused (PT_STEP_REFUSED) with the status the device is in. */
export const ptStepsFrom: Record<PtDeviceCommand['type'], readonly PtStatus[]> = {
  Test: ['untested', 'tested', 'reported', 'returned'],
  GenerateReport: ['tested'],
  Upgrade: ['untested', 'tested', 'reported', 'returned'],
  SetSn: ['reported'],
  Submit: ['reported'],
  ReturnToProduction: ['submitted'],
  QcTest: ['submitted', 'qcTested'],
  QcFinish: ['qcTested'],
  QcSubmit: ['qcFinished'],
  QcReturn: ['submitted', 'qcTested', 'qcFinished'],
};

/**
 * A device's product test: production tests it (again as often as it likes), generates the report of the last
 * run, may set its SN once it passed, and submits it; a configuration without a quality test completes it there.
 * QC tests it, finishes (its report), submits (complete) or returns it to production, which starts over. An
 * upgrade changes the firmware, so the device is tested again after.
 */
export const ptDeviceDecider: Decider<PtDeviceCommand, PtDeviceEvent, PtDeviceState> = {
  initialState: { status: 'untested', run: null, remark: null, productSn: null },
  evolve(state, event) {
    switch (event.type) {
      case 'PtTested':
        return {
          ...state,
          status: 'tested',
          run: { passed: event.data.passed, checks: event.data.checks, testedAt: event.data.testedAt },
          remark: null,
        };
      case 'PtReportGenerated':
        return { ...state, status: 'reported' };
      case 'PtSubmitted':
        return { ...state, status: event.data.toQc ? 'submitted' : 'completed', run: null };
      case 'PtReturnedToProduction':
      case 'PtQcReturned':
        return { ...state, status: 'returned', run: null };
      case 'PtUpgraded':
        return { ...state, status: 'untested', run: null };
      case 'PtSnSet':
        return { ...state, productSn: event.data.productSn };
      case 'PtQcTested':
        return {
          ...state,
          status: 'qcTested',
          run: { passed: event.data.passed, checks: event.data.checks, testedAt: event.data.testedAt },
          remark: event.data.remark,
        };
      case 'PtQcFinished':
        return { ...state, status: 'qcFinished' };
      case 'PtQcSubmitted':
        return { ...state, status: 'completed' };
      default:
        return state;
    }
  },
  decide(command, state) {
    if (!ptStepsFrom[command.type].includes(state.status)) throw new DomainError('PT_STEP_REFUSED', { status: state.status });
    const base = command.base;
    const passed = state.run?.passed ?? false;
    switch (command.type) {
      case 'Test':
        return [{ type: 'PtTested', data: { ...base, ...command.run } }];
      case 'GenerateReport':
      case 'QcFinish': {
        const report = { ...command.report, passed, checks: state.run?.checks ?? [], testedAt: state.run?.testedAt ?? '' };
        if (command.type === 'GenerateReport') return [{ type: 'PtReportGenerated', data: { ...base, ...report, kind: 'pt' } }];
        return [{ type: 'PtQcFinished', data: { ...base, ...report, kind: 'qc', remark: state.remark } }];
      }
      case 'Submit':
        if (!passed) throw new DomainError('PT_TEST_FAILED');
        return [{ type: 'PtSubmitted', data: { ...base, toQc: command.toQc } }];
      case 'ReturnToProduction':
        return [{ type: 'PtReturnedToProduction', data: { ...base, reason: command.reason } }];
      case 'Upgrade':
        return [{ type: 'PtUpgraded', data: { ...base, fileId: command.fileId } }];
      case 'SetSn':
        if (!passed) throw new DomainError('PT_TEST_FAILED');
        if (state.productSn === command.productSn && command.iccid === null) return [];
        return [{ type: 'PtSnSet', data: { ...base, productSn: command.productSn, iccid: command.iccid } }];
      case 'QcTest':
        return [{ type: 'PtQcTested', data: { ...base, ...command.run, remark: command.remark } }];
      case 'QcSubmit':
        if (!passed) throw new DomainError('PT_TEST_FAILED');
        return [{ type: 'PtQcSubmitted', data: base }];
      case 'QcReturn':
        return [{ type: 'PtQcReturned', data: { ...base, reason: command.reason } }];
      default:
        return unreachable(command);
    }
  },
};

export const ptConfigStream = (tenantId: string, id: string) => `ptConfig-${tenantId}.${id}`;
export const ptBatchStream = (tenantId: string, id: string) => `ptBatch-${tenantId}.${id}`;
export const ptIccidStream = (tenantId: string, iccid: string) => `ptIccid-${tenantId}.${iccid}`;
export const ptDeviceStream = (tenantId: string, deviceId: string) => `ptDevice-${tenantId}.${deviceId}`;
/** A configuration's login password hash, among the platform's credentials (auth_credentials), under a subject of its own kind. */
export const ptConfigSubject = (id: string) => `ptConfig:${id}`;
