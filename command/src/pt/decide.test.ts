import { describe, expect, it } from 'vitest';
import { ptStatuses, type PtConfigEvent, type PtDeviceEvent, type PtRun, type PtStatus, type PtStepBase } from '@iot/contracts';
import { codeOf, scenario } from '../decider-testing.ts';
import { ptConfigDecider, ptDeviceDecider, ptIccidDecider, ptStepsFrom, type PtDeviceCommand } from './decide.ts';

const base: PtStepBase = { deviceId: 'd1', configId: 'c1', sn: 'SN-1', productName: 'Meter', productCode: 'M1', operator: 'tester' };
const pass: PtRun = {
  passed: true,
  checks: [{ identifier: 't', name: 'Temp', value: 21, min: 0, max: 50, unit: 'C', ok: true, fault: null }],
  testedAt: '2026-11-25T10:00:00.000Z',
};
const fail: PtRun = {
  passed: false,
  checks: [{ identifier: 't', name: 'Temp', value: 99, min: 0, max: 50, unit: 'C', ok: false, fault: 'outOfRange' }],
  testedAt: '2026-11-25T10:05:00.000Z',
};
const report = { reportId: 'r1', alias: 'Line 1', deviceName: 'Meter 1', remark: null };

const tested = (run: PtRun = pass): PtDeviceEvent => ({ type: 'PtTested', data: { ...base, ...run } });
const reported = (run: PtRun = pass): PtDeviceEvent => ({
  type: 'PtReportGenerated',
  data: { ...base, ...report, ...run, kind: 'pt' },
});
const submitted: PtDeviceEvent = { type: 'PtSubmitted', data: { ...base, toQc: true } };
const qcTested = (run: PtRun = pass): PtDeviceEvent => ({ type: 'PtQcTested', data: { ...base, ...run, remark: 'ok' } });
const qcFinished = (run: PtRun = pass): PtDeviceEvent => ({
  type: 'PtQcFinished',
  data: { ...base, ...report, ...run, kind: 'qc', remark: 'ok' },
});

/** A history that leaves a device in each status, every test passed. */
const historyOf: Record<PtStatus, PtDeviceEvent[]> = {
  untested: [],
  tested: [tested()],
  reported: [tested(), reported()],
  submitted: [tested(), reported(), submitted],
  qcTested: [tested(), reported(), submitted, qcTested()],
  qcFinished: [tested(), reported(), submitted, qcTested(), qcFinished()],
  completed: [tested(), reported(), submitted, qcTested(), qcFinished(), { type: 'PtQcSubmitted', data: base }],
  returned: [tested(), reported(), submitted, { type: 'PtQcReturned', data: { ...base, reason: 'scratched' } }],
};

const commands: PtDeviceCommand[] = [
  { type: 'Test', base, run: pass },
  { type: 'GenerateReport', base, report },
  { type: 'Upgrade', base, fileId: 'f1' },
  { type: 'SetSn', base, productSn: 'P-0001', iccid: null },
  { type: 'Submit', base, toQc: true },
  { type: 'ReturnToProduction', base, reason: null },
  { type: 'QcTest', base, run: pass, remark: null },
  { type: 'QcFinish', base, report },
  { type: 'QcSubmit', base },
  { type: 'QcReturn', base, reason: 'dent' },
];
/** Where each step leaves a device. */
const after: Record<PtDeviceCommand['type'], PtStatus | 'same'> = {
  Test: 'tested',
  GenerateReport: 'reported',
  Upgrade: 'untested',
  SetSn: 'same',
  Submit: 'submitted',
  ReturnToProduction: 'returned',
  QcTest: 'qcTested',
  QcFinish: 'qcFinished',
  QcSubmit: 'completed',
  QcReturn: 'returned',
};
const statusAfter = (events: PtDeviceEvent[]) => events.reduce(ptDeviceDecider.evolve, ptDeviceDecider.initialState).status;

describe('product test flow of a device', () => {
  const { given } = scenario(ptDeviceDecider);

  it('reaches each status through the steps of the flow', () => {
    for (const status of ptStatuses) expect(statusAfter(historyOf[status]), status).toBe(status);
  });

  for (const command of commands) {
    for (const status of ptStatuses) {
      const allowed = ptStepsFrom[command.type].includes(status);
      it(`${command.type} from ${status}: ${allowed ? 'taken' : 'refused'}`, () => {
        if (!allowed) {
          expect(codeOf(() => given(historyOf[status]).when(command))).toBe('PT_STEP_REFUSED');
          return;
        }
        const events = given(historyOf[status]).when(command);
        expect(events).toHaveLength(1);
        expect(events[0]!.data).toMatchObject(base);
        const want = after[command.type];
        expect(statusAfter([...historyOf[status], ...events])).toBe(want === 'same' ? status : want);
      });
    }
  }

  it('a report carries the last run, its checks and when it ran', () => {
    const [event] = given([tested(fail), tested(pass)]).when({ type: 'GenerateReport', base, report });
    expect(event).toEqual({ type: 'PtReportGenerated', data: { ...base, ...report, ...pass, kind: 'pt' } });
    const [qc] = given(historyOf.qcTested).when({ type: 'QcFinish', base, report });
    expect(qc).toEqual({ type: 'PtQcFinished', data: { ...base, ...report, ...pass, kind: 'qc', remark: 'ok' } });
  });

  it('a failed test is reported but neither submitted nor given an SN; QC that failed is not submitted', () => {
    const failedReport = [tested(fail), reported(fail)];
    expect(codeOf(() => given(failedReport).when({ type: 'Submit', base, toQc: true }))).toBe('PT_TEST_FAILED');
    expect(codeOf(() => given(failedReport).when({ type: 'SetSn', base, productSn: 'P', iccid: null }))).toBe('PT_TEST_FAILED');
    const failedQc = [...historyOf.submitted, qcTested(fail), qcFinished(fail)];
    expect(codeOf(() => given(failedQc).when({ type: 'QcSubmit', base }))).toBe('PT_TEST_FAILED');
    expect(statusAfter([...failedQc, ...given(failedQc).when({ type: 'QcReturn', base, reason: 'x' })])).toBe('returned');
  });

  it('a configuration without a quality test completes the device at submit', () => {
    const events = given(historyOf.reported).when({ type: 'Submit', base, toQc: false });
    expect(statusAfter([...historyOf.reported, ...events])).toBe('completed');
  });

  it('a returned device is tested and reported again before it is submitted again', () => {
    const returned = historyOf.returned;
    expect(codeOf(() => given(returned).when({ type: 'Submit', base, toQc: true }))).toBe('PT_STEP_REFUSED');
    const retested = [...returned, ...given(returned).when({ type: 'Test', base, run: pass })];
    expect(codeOf(() => given(retested).when({ type: 'Submit', base, toQc: true }))).toBe('PT_STEP_REFUSED');
    const again = [...retested, ...given(retested).when({ type: 'GenerateReport', base, report })];
    expect(given(again).when({ type: 'Submit', base, toQc: true })).toEqual([submitted]);
  });

  it('setting the same SN again appends nothing', () => {
    const withSn = [...historyOf.reported, ...given(historyOf.reported).when({ type: 'SetSn', base, productSn: 'P-1', iccid: null })];
    expect(given(withSn).when({ type: 'SetSn', base, productSn: 'P-1', iccid: null })).toEqual([]);
  });
});

describe('test configuration decider', () => {
  const { given } = scenario(ptConfigDecider);
  const fields = {
    alias: 'Line 1',
    productId: 'p1',
    productName: 'Meter',
    productCode: 'M1',
    batchId: null,
    qcPermission: true,
    username: null,
    hasPassword: false,
    iccidCheck: false,
    parameters: [],
    upgradeFileId: null,
    qcTesterId: null,
    remark: null,
  };
  const created = { type: 'PtConfigCreated', data: { configId: 'c1', ...fields } } as const;

  it('binds a user once, unbinds only one bound, refuses a deleted configuration', () => {
    expect(given([created]).when({ type: 'Bind', id: 'c1', userIds: ['u1', 'u1'] })).toEqual([
      { type: 'PtUsersBound', data: { configId: 'c1', userIds: ['u1'] } },
    ]);
    const bound: PtConfigEvent = { type: 'PtUsersBound', data: { configId: 'c1', userIds: ['u1'] } };
    expect(given([created, bound]).when({ type: 'Bind', id: 'c1', userIds: ['u1'] })).toEqual([]);
    expect(given([created, bound]).when({ type: 'Unbind', id: 'c1', userIds: ['u1', 'u2'] })).toEqual([
      { type: 'PtUsersUnbound', data: { configId: 'c1', userIds: ['u1'] } },
    ]);
    const deleted = { type: 'PtConfigDeleted', data: { configId: 'c1' } } as const;
    expect(codeOf(() => given([created, deleted]).when({ type: 'Bind', id: 'c1', userIds: ['u1'] }))).toBe('NOT_FOUND');
    expect(given([created]).when({ type: 'Update', id: 'c1', fields })).toEqual([]);
  });
});

describe('ICCID decider', () => {
  const { given } = scenario(ptIccidDecider);
  const added = { type: 'PtIccidAdded', data: { iccid: '89860000000000000001', batchId: null, remark: null } } as const;
  const assigned = { type: 'PtIccidAssigned', data: { iccid: '89860000000000000001', deviceId: 'd1', sn: 'SN-1' } } as const;

  it('is added once, paired with one device, deleted only while unpaired, added again after a delete', () => {
    expect(codeOf(() => given([added]).when({ type: 'Add', fields: added.data }))).toBe('PT_ICCID_EXISTS');
    expect(codeOf(() => given([added, assigned]).when({ type: 'Assign', iccid: added.data.iccid, deviceId: 'd2', sn: 'SN-2' }))).toBe(
      'PT_ICCID_UNKNOWN',
    );
    expect(codeOf(() => given([added, assigned]).when({ type: 'Delete', iccid: added.data.iccid }))).toBe('PT_ICCID_IN_USE');
    const deleted = { type: 'PtIccidDeleted', data: { iccid: added.data.iccid } } as const;
    expect(given([added]).when({ type: 'Delete', iccid: added.data.iccid })).toEqual([deleted]);
    expect(given([added, deleted]).when({ type: 'Add', fields: added.data })).toEqual([added]);
    expect(codeOf(() => given([]).when({ type: 'Assign', iccid: 'x', deviceId: 'd1', sn: 'SN-1' }))).toBe('PT_ICCID_UNKNOWN');
  });
});
