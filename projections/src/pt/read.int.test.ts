import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PtConfigFields, PtDeviceEvent, PtRun, PtStepBase } from '@iot/contracts';
import { readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { ptProjection } from './pt.ts';
import { ptConfigById, ptConfigsPage, ptDeviceStates, ptIccidsPage, ptOperationsPage, ptReportById, ptReportsPage } from './read.ts';

let sut: ReadModel;
const page = { page: 1, pageSize: 20, order: 'asc' as const };
const config: PtConfigFields = {
  alias: 'Line 1',
  productId: 'p1',
  productName: 'Meter',
  productCode: 'M1',
  batchId: 'b1',
  qcPermission: true,
  username: 'station',
  hasPassword: true,
  iccidCheck: false,
  parameters: ['temperature'],
  upgradeFileId: null,
  qcTesterId: null,
  remark: null,
};
const base: PtStepBase = { deviceId: 'd1', configId: 'c1', sn: 'SN-1', productName: 'Meter', productCode: 'M1', operator: 'alice' };
const run: PtRun = {
  passed: true,
  checks: [{ identifier: 'temperature', name: 'Temp', value: 21, min: 0, max: 50, unit: 'C', ok: true, fault: null }],
  testedAt: '2026-11-25T10:00:00.000Z',
};
const steps: PtDeviceEvent[] = [
  { type: 'PtTested', data: { ...base, ...run } },
  {
    type: 'PtReportGenerated',
    data: { ...base, ...run, reportId: 'r1', kind: 'pt', alias: 'Line 1', deviceName: 'Meter 1', remark: null },
  },
  { type: 'PtSnSet', data: { ...base, productSn: 'P-1', iccid: '89860000000000000001' } },
  { type: 'PtSubmitted', data: { ...base, toQc: true } },
  { type: 'PtQcReturned', data: { ...base, reason: 'scratch' } },
];

beforeAll(async () => {
  sut = await readModelOf(ptProjection);
  const at = (n: number) => `2026-11-25T1${n}:00:00Z`;
  await sut.given(
    ptProjection,
    { type: 'PtBatchCreated', data: { batchId: 'b1', batchNo: 'B-1', productId: 'p1', quantity: 5, remark: null } },
    { tenantId: 't1' },
  );
  await sut.given(ptProjection, { type: 'PtConfigCreated', data: { configId: 'c1', ...config } }, { tenantId: 't1', at: at(0) });
  await sut.given(
    ptProjection,
    { type: 'PtConfigCreated', data: { configId: 'c2', ...config, alias: 'Theirs' } },
    { tenantId: 't2', at: at(0) },
  );
  await sut.given(ptProjection, { type: 'PtUsersBound', data: { configId: 'c1', userIds: ['u2', 'u1'] } }, { tenantId: 't1' });
  await sut.given(ptProjection, { type: 'PtUsersUnbound', data: { configId: 'c1', userIds: ['u2'] } }, { tenantId: 't1' });
  for (const iccid of ['89860000000000000001', '89860000000000000002'])
    await sut.given(ptProjection, { type: 'PtIccidAdded', data: { iccid, batchId: 'b1', remark: null } }, { tenantId: 't1' });
  await sut.given(
    ptProjection,
    { type: 'PtIccidAssigned', data: { iccid: '89860000000000000001', deviceId: 'd1', sn: 'SN-1' } },
    { tenantId: 't1' },
  );
  for (const [i, step] of steps.entries()) await sut.given(ptProjection, step, { tenantId: 't1', at: at(i + 1) });
}, 120_000);
afterAll(async () => sut?.drop());

describe('pt read model', () => {
  it('keeps configurations per tenant with their batch number and bound users', async () => {
    const mine = await ptConfigsPage(sut.db, 't1', {}, page);
    expect(mine.rows).toEqual([
      expect.objectContaining({
        id: 'c1',
        alias: 'Line 1',
        batchNo: 'B-1',
        boundUserIds: ['u1'],
        parameters: ['temperature'],
        createdBy: 'tester',
      }),
    ]);
    expect(await ptConfigById(sut.db, 't1', 'c2')).toBeNull();
  });

  it('lists ICCIDs with the device each is paired with, filtered by pairing', async () => {
    const paired = await ptIccidsPage(sut.db, 't1', { paired: true }, page);
    expect(paired.rows).toEqual([expect.objectContaining({ iccid: '89860000000000000001', deviceSn: 'SN-1', batchNo: 'B-1' })]);
    expect((await ptIccidsPage(sut.db, 't1', { paired: false }, page)).total).toBe(1);
    expect((await ptIccidsPage(sut.db, 't2', {}, page)).total).toBe(0);
  });

  it('follows a device through its steps: status, product SN, ICCID, report', async () => {
    const state = (await ptDeviceStates(sut.db, 't1', ['d1'])).get('d1');
    expect(state).toMatchObject({ status: 'returned', passed: null, productSn: 'P-1', iccid: '89860000000000000001', reportId: 'r1' });
    expect((await ptDeviceStates(sut.db, 't2', ['d1'])).size).toBe(0);
  });

  it('keeps the report as generated, and the operation records of every step', async () => {
    const report = await ptReportById(sut.db, 't1', 'pt', 'r1');
    expect(report).toMatchObject({ sn: 'SN-1', passed: true, tester: 'alice', checks: run.checks });
    expect(report!.testTime.toISOString()).toBe('2026-11-25T10:00:00.000Z');
    expect(await ptReportById(sut.db, 't1', 'qc', 'r1')).toBeNull();
    expect((await ptReportsPage(sut.db, 't1', 'pt', { passed: false }, page)).total).toBe(0);
    const records = await ptOperationsPage(sut.db, 't1', {}, { ...page, sort: 'createTime' });
    expect(records.rows.map((r) => [r.operation, r.detail, r.user])).toEqual([
      ['test', 'passed', 'alice'],
      ['report', 'passed', 'alice'],
      ['setSn', 'P-1 / 89860000000000000001', 'alice'],
      ['submit', null, 'alice'],
      ['qcReturn', 'scratch', 'alice'],
    ]);
    expect((await ptOperationsPage(sut.db, 't1', { operation: 'setSn' }, page)).total).toBe(1);
  });
});
