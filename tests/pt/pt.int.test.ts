import { randomBytes } from 'node:crypto';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { ok, refusal } from '../harness/api.ts';
import { waitFor } from '../harness/process.ts';
import { tusClient } from '../files/tus.ts';

/**
 * Product test and QC (issue 21) over HTTP: a configuration, ICCIDs imported with a per-row report, the flow of a
 * device through every state with the out-of-order steps refused, a failing device, reports exported as XLSX and
 * PDF, operation records listed and exported, user binding, and another tenant seeing none of it.
 */
let sut: TestPlatform;
let admin: string;
let other: string;
let productId: string;
let configId: string;
let firmwareId: string;
const devices: Record<string, { id: string; secret: string }> = {};

async function report(sn: string, values: Record<string, number>) {
  const r = await sut.call('telemetry.report', { body: { sn, secret: devices[sn]!.secret, data: { ts: Date.now(), values } } });
  expect(r.status, r.body).toBe(200);
}
const target = (sn: string) => ({ configId, deviceId: devices[sn]!.id });

/** An upgrade package uploaded through the files capability (tus): its file id. */
async function uploadFirmware(): Promise<string> {
  const tus = tusClient(sut.platform.url!.replace('localhost', '127.0.0.1'), admin);
  const bytes = randomBytes(4096);
  const location = (await tus.create(bytes.byteLength, { name: 'meter-fw-1.2.bin', fileType: 'upgrade', version: '1.2' })).headers.get(
    'location',
  )!;
  expect((await tus.patch(location, 0, bytes)).status).toBe(204);
  return location.split('/').at(-1)!;
}

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'ptco', name: 'ptCo', adminUsername: 'ptAdmin', adminPassword: 'Pt#admin123' });
  await sut.seedTenant({ id: 'ptother', name: 'ptOther', adminUsername: 'ptOtherAdmin', adminPassword: 'Pt#other123' });
  admin = await sut.login('ptAdmin', 'Pt#admin123');
  other = await sut.login('ptOtherAdmin', 'Pt#other123');
  productId = ok(await sut.call('product.create', { token: admin, body: { name: 'Meter', code: 'PTM', type: 'direct' } })).id;
  for (const fn of [
    { identifier: 'temperature', name: 'Temperature', dataType: { type: 'float', min: 0, max: 50, unit: 'C' } },
    { identifier: 'voltage', name: 'Voltage', dataType: { type: 'int', min: 200, max: 240, unit: 'V' } },
  ])
    ok(await sut.call('product.defineFunction', { token: admin, body: { productId, function: { type: 'property', access: 'r', ...fn } } }));
  ok(await sut.call('product.publish', { token: admin, body: { id: productId } }));
  for (const sn of ['PT-1', 'PT-2']) {
    const created = ok(await sut.call('device.create', { token: admin, body: { sn, name: `Meter ${sn}`, productId } }));
    devices[sn] = { id: created.id, secret: created.secret! };
  }
  await report('PT-1', { temperature: 21.5, voltage: 220 });
  // The intake refuses a value outside the thing model's range: PT-2 reports no temperature at all.
  await report('PT-2', { voltage: 221 });
  for (const sn of ['PT-1', 'PT-2'])
    await waitFor(`latest values of ${sn}`, async () => {
      const latest = ok(await sut.call('telemetry.latest', { token: admin, query: { id: devices[sn]!.id } }));
      return latest.length === (sn === 'PT-1' ? 2 : 1);
    });
}, 180_000);
afterAll(async () => {
  await sut?.stop();
});

describe('test configuration, batch and ICCIDs', () => {
  it('keeps a configuration with its product named, its password never answered', async () => {
    const batchId = ok(await sut.call('ptBatch.create', { token: admin, body: { batchNo: 'B-2026-11', productId, quantity: 100 } })).id;
    configId = ok(
      await sut.call('ptConfig.create', {
        token: admin,
        body: { alias: 'Line 1', productId, batchId, qcPermission: true, username: 'station1', password: 'Station#1', iccidCheck: true },
      }),
    ).id;
    const list = await sut.call('ptConfig.list', { token: admin });
    expect(list.body).not.toContain('Station#1');
    expect(ok(list).rows).toEqual([
      expect.objectContaining({
        id: configId,
        alias: 'Line 1',
        productName: 'Meter',
        productCode: 'PTM',
        batchNo: 'B-2026-11',
        hasPassword: true,
      }),
    ]);
    expect(ok(await sut.call('ptBatch.list', { token: admin })).rows).toEqual([
      expect.objectContaining({ batchNo: 'B-2026-11', quantity: 100 }),
    ]);
  });

  it('imports ICCIDs from CSV with a report line per refused row, and a re-run adds nothing twice', async () => {
    const file = Buffer.from(
      [
        'iccid,remark',
        '89860000000000000001,first',
        '89860000000000000002,',
        'not-an-iccid,x',
        ',empty',
        '89860000000000000001,again',
      ].join('\n'),
    );
    const first = ok(await sut.call('ptIccid.import', { token: admin, body: file, headers: { 'content-type': 'text/csv', lang: 'en' } }));
    expect(first).toMatchObject({ total: 5, created: 2, failed: 3 });
    expect(first.faults.map((f) => [f.row, f.reason])).toEqual([
      [4, 'invalid'],
      [5, 'required'],
      [6, 'repeats'],
    ]);
    expect(first.faults[2]!.message).toBe('Repeats row 2');
    const again = ok(await sut.call('ptIccid.import', { token: admin, body: file, headers: { 'content-type': 'text/csv' } }));
    expect(again).toMatchObject({ created: 0 });
    expect(again.faults.filter((f) => f.reason === 'exists').map((f) => f.row)).toEqual([2, 3]);
    expect(again.faults[0]!.message).toBe('ICCID已存在');
    expect(ok(await sut.call('ptIccid.list', { token: admin })).total).toBe(2);
    // The same from a workbook, into a batch: Chinese headers, the refused rows by their spreadsheet row.
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('iccid');
    for (const line of [
      ['ICCID', '备注'],
      ['89860000000000000003', 'xlsx'],
      ['12345', 'short'],
      ['89860000000000000001', 'old'],
    ])
      sheet.addRow(line);
    const xlsx = Buffer.from(await book.xlsx.writeBuffer());
    const [batch] = ok(await sut.call('ptBatch.list', { token: admin })).rows;
    const type = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
    const fromXlsx = ok(
      await sut.call('ptIccid.import', { token: admin, query: { batchId: batch!.id }, body: xlsx, headers: { 'content-type': type } }),
    );
    expect(fromXlsx).toMatchObject({ total: 3, created: 1, failed: 2 });
    expect(fromXlsx.faults.map((f) => [f.row, f.reason])).toEqual([
      [3, 'invalid'],
      [4, 'exists'],
    ]);
    const inBatch = ok(await sut.call('ptIccid.list', { token: admin, query: { batchId: batch!.id } })).rows;
    expect(inBatch).toEqual([expect.objectContaining({ iccid: '89860000000000000003', batchNo: 'B-2026-11', remark: 'xlsx' })]);
    ok(await sut.call('ptIccid.delete', { token: admin, query: { ids: ['89860000000000000003'] } }));
    expect(ok(await sut.call('ptIccid.list', { token: admin })).total).toBe(2);
    expect(
      refusal(await sut.call('ptIccid.import', { token: admin, body: Buffer.from('sn\n1\n'), headers: { 'content-type': 'text/csv' } })),
    ).toBe('FILE_COLUMNS');
  });
});

describe('the flow of a device', () => {
  const status = async (sn: string) => {
    const rows = ok(await sut.call('production.devices', { token: admin, query: { configId } })).rows;
    return rows.find((d) => d.sn === sn)!.testStatus;
  };

  it('refuses steps out of order before any test', async () => {
    for (const name of [
      'production.report',
      'production.submit',
      'production.return',
      'quality.finish',
      'quality.submit',
      'quality.return',
    ] as const) {
      const r = await sut.call(name, { token: admin, body: target('PT-1') });
      expect(r.status, name).toBe(409);
      expect(refusal(r), name).toBe('PT_STEP_REFUSED');
    }
    expect(refusal(await sut.call('quality.test', { token: admin, body: target('PT-1') }))).toBe('PT_STEP_REFUSED');
    expect(refusal(await sut.call('production.upgrade', { token: admin, body: target('PT-1') }))).toBe('PT_UPGRADE_PACKAGE');
    expect(await status('PT-1')).toBe('untested');
  });

  it('tests, reports, sets the SN with an ICCID, submits, is returned, and goes through QC to completion', async () => {
    // The upgrade package is a stored file's id (the files capability keeps the file).
    const [config] = ok(await sut.call('ptConfig.list', { token: admin })).rows;
    const { alias, batchId, qcPermission, username, iccidCheck } = config!;
    const edited = { id: configId, alias, productId, batchId, qcPermission, username, iccidCheck, upgradeFileId: 'firmware-1-2' };
    ok(await sut.call('ptConfig.update', { token: admin, body: edited }));
    expect(ok(await sut.call('ptConfig.list', { token: admin })).rows[0]).toMatchObject({
      upgradeFileId: 'firmware-1-2',
      hasPassword: true,
    });
    ok(await sut.call('production.test', { token: admin, body: target('PT-1') }));
    // A package that is no stored upgrade file is refused before the step is recorded.
    expect(refusal(await sut.call('production.upgrade', { token: admin, body: target('PT-1') }))).toBe('OTA_FILE_UNFIT');
    expect(await status('PT-1')).toBe('tested');
    firmwareId = await uploadFirmware();
    ok(await sut.call('ptConfig.update', { token: admin, body: { ...edited, upgradeFileId: firmwareId } }));
    const upgraded = ok(await sut.call('production.upgrade', { token: admin, body: target('PT-1') }));
    expect(upgraded.testStatus).toBe('untested');
    // The upgrade is a rollout of the package to this one device.
    const rollout = ok(await sut.call('otaTask.detail', { token: admin, query: { id: upgraded.otaTaskId! } }));
    expect(rollout).toMatchObject({
      file: { fileId: firmwareId, version: '1.2' },
      target: { kind: 'devices', deviceIds: [devices['PT-1']!.id] },
    });
    expect(rollout.counts.total).toBe(1);
    expect(refusal(await sut.call('production.report', { token: admin, body: target('PT-1') }))).toBe('PT_STEP_REFUSED');
    const run = ok(await sut.call('production.test', { token: admin, body: target('PT-1') }));
    expect(run.passed).toBe(true);
    expect(run.checks).toEqual([
      expect.objectContaining({ identifier: 'temperature', value: 21.5, min: 0, max: 50, ok: true }),
      expect.objectContaining({ identifier: 'voltage', value: 220, ok: true }),
    ]);
    const withIccid = { ...target('PT-1'), sn: 'P-0001', iccid: '89860000000000000001' };
    expect(refusal(await sut.call('production.sn', { token: admin, body: withIccid }))).toBe('PT_STEP_REFUSED');
    expect(ok(await sut.call('production.report', { token: admin, body: target('PT-1') })).testStatus).toBe('reported');
    expect(refusal(await sut.call('production.sn', { token: admin, body: { ...target('PT-1'), sn: 'P-0001' } }))).toBe('PT_ICCID_REQUIRED');
    const unknownIccid = { ...target('PT-1'), sn: 'P-0001', iccid: '89860000000000000099' };
    expect(refusal(await sut.call('production.sn', { token: admin, body: unknownIccid }))).toBe('PT_ICCID_UNKNOWN');
    ok(await sut.call('production.sn', { token: admin, body: withIccid }));
    expect(ok(await sut.call('production.submit', { token: admin, body: target('PT-1') })).testStatus).toBe('submitted');
    expect(refusal(await sut.call('production.test', { token: admin, body: target('PT-1') }))).toBe('PT_STEP_REFUSED');
    expect(ok(await sut.call('production.return', { token: admin, body: { ...target('PT-1'), reason: 'label missing' } })).testStatus).toBe(
      'returned',
    );
    expect(refusal(await sut.call('production.submit', { token: admin, body: target('PT-1') }))).toBe('PT_STEP_REFUSED');
    ok(await sut.call('production.test', { token: admin, body: target('PT-1') }));
    ok(await sut.call('production.report', { token: admin, body: target('PT-1') }));
    ok(await sut.call('production.submit', { token: admin, body: target('PT-1') }));

    expect(refusal(await sut.call('quality.finish', { token: admin, body: target('PT-1') }))).toBe('PT_STEP_REFUSED');
    expect(ok(await sut.call('quality.test', { token: admin, body: { ...target('PT-1'), remark: 'looks fine' } })).passed).toBe(true);
    expect(ok(await sut.call('quality.return', { token: admin, body: { ...target('PT-1'), reason: 'scratch' } })).testStatus).toBe(
      'returned',
    );
    for (const name of ['production.test', 'production.report', 'production.submit'] as const)
      ok(await sut.call(name, { token: admin, body: target('PT-1') }));
    ok(await sut.call('quality.test', { token: admin, body: target('PT-1') }));
    expect(refusal(await sut.call('quality.submit', { token: admin, body: target('PT-1') }))).toBe('PT_STEP_REFUSED');
    expect(ok(await sut.call('quality.finish', { token: admin, body: target('PT-1') })).testStatus).toBe('qcFinished');
    expect(ok(await sut.call('quality.submit', { token: admin, body: target('PT-1') })).testStatus).toBe('completed');
    for (const name of ['production.test', 'production.upgrade', 'quality.test', 'quality.return'] as const)
      expect(refusal(await sut.call(name, { token: admin, body: target('PT-1') })), name).toBe('PT_STEP_REFUSED');

    const row = ok(await sut.call('production.devices', { token: admin, query: { configId, testStatus: 'completed' } })).rows;
    expect(row).toEqual([
      expect.objectContaining({ sn: 'PT-1', productSn: 'P-0001', iccid: '89860000000000000001', testStatus: 'completed' }),
    ]);
    const paired = ok(await sut.call('ptIccid.delete', { token: admin, query: { ids: ['89860000000000000001'] } }));
    expect(paired.results[0]).toMatchObject({ ok: false, code: 'PT_ICCID_IN_USE' });
  });

  it('a device missing a value fails its test: reported, never submitted', async () => {
    const run = ok(await sut.call('production.test', { token: admin, body: target('PT-2') }));
    expect(run.passed).toBe(false);
    expect(run.checks.find((c) => c.identifier === 'temperature')).toMatchObject({ value: null, ok: false, fault: 'noValue' });
    ok(await sut.call('production.report', { token: admin, body: target('PT-2') }));
    expect(refusal(await sut.call('production.submit', { token: admin, body: target('PT-2') }))).toBe('PT_TEST_FAILED');
    expect(await status('PT-2')).toBe('reported');
  });

  it('lists the reports and exports them as XLSX and PDF', async () => {
    const reports = ok(await sut.call('ptReport.list', { token: admin, query: { sn: 'PT' } }));
    expect(reports.total).toBe(4);
    expect(ok(await sut.call('ptOperation.list', { token: admin, query: { operation: 'upgrade' } })).rows[0]).toMatchObject({
      detail: firmwareId,
    });
    const failed = ok(await sut.call('ptReport.list', { token: admin, query: { passed: 'false' } })).rows;
    expect(failed).toEqual([expect.objectContaining({ sn: 'PT-2', passed: false, tester: 'ptAdmin', productCode: 'PTM' })]);
    const qc = ok(await sut.call('qcReport.list', { token: admin })).rows;
    expect(qc).toEqual([expect.objectContaining({ sn: 'PT-1', kind: 'qc', passed: true })]);
    const xlsx = await sut.call('qcReport.export', { token: admin, query: { id: qc[0]!.id, format: 'xlsx' } });
    expect(xlsx.status).toBe(200);
    expect(xlsx.headers['content-type']).toContain('spreadsheetml');
    expect(xlsx.rawPayload.subarray(0, 2).toString()).toBe('PK');
    const pdf = await sut.call('ptReport.export', { token: admin, query: { id: failed[0]!.id, format: 'pdf' } });
    expect(pdf.headers['content-type']).toContain('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(refusal(await sut.call('ptReport.export', { token: admin, query: { id: qc[0]!.id, format: 'pdf' } }))).toBe('NOT_FOUND');
  });

  it('records every step with device SN, product, operation and user; filtered and exported', async () => {
    const all = ok(await sut.call('ptOperation.list', { token: admin, query: { pageSize: 100 } }));
    expect(all.rows.every((r) => r.user === 'ptAdmin' && r.productName === 'Meter' && r.productCode === 'PTM')).toBe(true);
    const returns = ok(await sut.call('ptOperation.list', { token: admin, query: { operation: 'qcReturn' } })).rows;
    expect(returns).toEqual([expect.objectContaining({ sn: 'PT-1', operation: 'qcReturn', detail: 'scratch' })]);
    const ofTwo = ok(await sut.call('ptOperation.list', { token: admin, query: { sn: 'PT-2' } })).rows.map((r) => r.operation);
    expect(ofTwo).toEqual(['report', 'test']);
    const csv = await sut.call('ptOperation.export', { token: admin, query: { sn: 'PT-2' }, headers: { lang: 'en' } });
    expect(csv.body.split('\n')[0]).toContain('Device SN,Product name,Product code,Operation');
    expect(csv.body).toContain('PT-2,Meter,PTM,test');
  });
});

describe('user binding and tenants', () => {
  it('once users are bound, only they run the production steps', async () => {
    const users = ok(await sut.call('ptBinding.list', { token: admin, query: { configId } })).rows;
    const me = users.find((u) => u.username === 'ptAdmin')!;
    expect(me.bound).toBe(false);
    const groupId = ok(await sut.call('group.create', { token: admin, body: { name: 'Factory', type: 'office' } })).id;
    const roleId = ok(await sut.call('role.create', { token: admin, body: { name: 'Tester', menuIds: ['producttest.production'] } })).id;
    const tester = ok(
      await sut.call('user.create', {
        token: admin,
        body: {
          username: 'lineTester',
          password: 'Line#pw123',
          sex: 'male',
          email: 'line@example.com',
          phone: '13900000011',
          status: 'enabled',
          groupId,
          roleIds: [roleId],
        },
      }),
    ).id;
    ok(await sut.call('ptBinding.bind', { token: admin, body: { configId, userIds: [tester] } }));
    expect(refusal(await sut.call('production.test', { token: admin, body: target('PT-2') }))).toBe('PT_NOT_BOUND');
    ok(await sut.call('ptBinding.bind', { token: admin, body: { configId, userIds: [me.userId] } }));
    ok(await sut.call('production.test', { token: admin, body: target('PT-2') }));
    ok(await sut.call('ptBinding.unbind', { token: admin, query: { configId, userIds: [me.userId, tester] } }));
    const after = ok(await sut.call('ptBinding.list', { token: admin, query: { configId } })).rows;
    expect(after.filter((u) => u.bound)).toEqual([]);
  });

  it("another tenant sees none of it and cannot step a device under the first tenant's configuration", async () => {
    expect(ok(await sut.call('ptConfig.list', { token: other })).total).toBe(0);
    expect(ok(await sut.call('ptIccid.list', { token: other })).total).toBe(0);
    expect(ok(await sut.call('ptReport.list', { token: other })).total).toBe(0);
    expect(ok(await sut.call('ptOperation.list', { token: other })).total).toBe(0);
    expect(refusal(await sut.call('production.test', { token: other, body: target('PT-2') }))).toBe('NOT_FOUND');
    expect(refusal(await sut.call('production.devices', { token: other, query: { configId } }))).toBe('NOT_FOUND');
  });
});
