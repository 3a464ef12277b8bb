import type { AddressInfo } from 'node:net';
import ExcelJS from 'exceljs';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReportScheduler } from '@iot/projections/report/scheduler.ts';
import { reportMailXlsx } from '@iot/query/report/render.ts';
import { ok, refusal } from '../harness/api.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { waitFor } from '../harness/process.ts';
import { pdfText } from './pdf-text.ts';

/**
 * Custom reports on the embedded engines (issue 20): a report over a known series computed in ClickHouse, its
 * XLSX read back and its PDF's text, a saved report emailed on its schedule to a real SMTP server once however many
 * schedulers tick, and a report of another tenant's devices refused.
 */
let sut: TestPlatform;
let smtp: SMTPServer;
const inbox: { to: string; subject: string; text: string; attachments: { filename: string; contentType: string; content: Buffer }[] }[] =
  [];
let token: string;
let groupId: string;
const devices: Record<string, string> = {};

const at = (deviceId: string, variable: string, ts: string, value: number) => ({
  tenantId: 'tango',
  deviceId,
  variable,
  ts: new Date(ts),
  value,
  text: null,
});
const range = { from: '2026-03-02T01:00:00Z', to: '2026-03-02T03:00:00Z' };

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, done) {
      simpleParser(stream)
        .then((mail) => {
          inbox.push({
            to: String((mail.to as { text: string }).text),
            subject: mail.subject ?? '',
            text: mail.text ?? '',
            attachments: mail.attachments.map((a) => ({ filename: a.filename ?? '', contentType: a.contentType, content: a.content })),
          });
          done();
        })
        .catch(done);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  sut = await startTestPlatform({ SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`, NOTIFY_RETRY_MS: '20' });
  await sut.seedTenant({ id: 'tango', name: 'tangoCo', adminUsername: 'tangoAdmin', adminPassword: 'Tango#pw1' });
  await sut.seedTenant({ id: 'uniform', name: 'uniformCo', adminUsername: 'uniformAdmin', adminPassword: 'Uniform#pw1' });
  token = await sut.login('tangoAdmin', 'Tango#pw1');
  const productId = ok(await sut.call('product.create', { token, body: { name: 'Boiler', code: 'RPT', type: 'direct' } })).id;
  for (const fn of [
    { type: 'property', name: '温度', identifier: 'temperature', dataType: { type: 'float', min: -40, max: 200, unit: '°C' } },
    { type: 'property', name: 'Humidity', identifier: 'humidity', dataType: { type: 'float', min: 0, max: 100 } },
  ])
    ok(await sut.call('product.defineFunction', { token, body: { productId, function: fn } }));
  ok(await sut.call('product.publish', { token, body: { id: productId } }));
  groupId = ok(await sut.call('group.create', { token, body: { name: 'Plant', type: 'office' } })).id;
  for (const sn of ['RPT-1', 'RPT-2'])
    devices[sn] = ok(await sut.call('device.create', { token, body: { sn, name: `锅炉 ${sn}`, productId, groupId } })).id;
  const [d1, d2] = [devices['RPT-1']!, devices['RPT-2']!];
  await sut.platform.timeseries!.insertTelemetry([
    at(d1, 'temperature', '2026-03-02T01:10:00Z', 10),
    at(d1, 'temperature', '2026-03-02T01:40:00Z', 20),
    at(d2, 'temperature', '2026-03-02T01:20:00Z', 30),
    at(d1, 'humidity', '2026-03-02T01:05:00Z', 50),
    at(d1, 'temperature', '2026-03-02T02:30:00Z', 40),
    // Outside the range and the day of 2 March in Shanghai: in no report below.
    at(d1, 'temperature', '2026-03-02T17:00:00Z', 999),
  ]);
  await sut.platform.runner.catchUp();
}, 120_000);
afterAll(async () => {
  await sut?.stop();
  await new Promise<void>((resolve) => smtp?.close(() => resolve()));
});

describe('custom reports', () => {
  it('folds each variable per cycle and device in the store, by picked devices or by group', async () => {
    const [d1, d2] = [devices['RPT-1']!, devices['RPT-2']!];
    const query = { ...range, deviceIds: [d1, d2], variables: ['temperature', 'humidity'], fn: 'avg' as const, cycle: '1h' as const };
    const table = ok(await sut.call('report.run', { token, query }));
    expect(table.columns).toEqual([
      { variable: 'temperature', name: '温度', unit: '°C' },
      { variable: 'humidity', name: 'Humidity', unit: null },
    ]);
    expect(table.rows).toEqual([
      { time: '2026-03-02T01:00:00.000Z', deviceId: d1, values: [15, 50] },
      { time: '2026-03-02T01:00:00.000Z', deviceId: d2, values: [30, null] },
      { time: '2026-03-02T02:00:00.000Z', deviceId: d1, values: [40, null] },
    ]);
    expect(table.total).toBe(3);
    const byGroup = ok(
      await sut.call('report.run', { token, query: { ...range, groupId, variables: ['temperature'], fn: 'max', cycle: '1d' } }),
    );
    // The day of 2 March in Shanghai holds every sample of the range.
    expect(byGroup.rows.map((r) => [r.deviceId, r.values])).toEqual([
      [d1, [40]],
      [d2, [30]],
    ]);
  });

  it('exports the report as XLSX read back cell by cell, and as a PDF whose text names the devices', async () => {
    const [d1, d2] = [devices['RPT-1']!, devices['RPT-2']!];
    const query = { ...range, deviceIds: [d1, d2], variables: ['temperature', 'humidity'], fn: 'avg' as const, cycle: '1h' as const };
    const xlsx = await sut.call('report.export', { token, query: { ...query, format: 'xlsx', name: 'Boilers' }, headers: { lang: 'en' } });
    expect(xlsx.status).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx.rawPayload as never);
    const sheet = book.worksheets[0]!;
    const cells = (n: number) => (sheet.getRow(n).values as unknown[]).slice(1);
    expect(cells(1)).toEqual(['Time', 'Device', 'Serial number', '温度 (°C)', 'Humidity']);
    expect(cells(2)).toEqual(['2026-03-02 09:00', '锅炉 RPT-1', 'RPT-1', 15, 50]);
    expect(cells(3)).toEqual(['2026-03-02 09:00', '锅炉 RPT-2', 'RPT-2', 30]);
    expect(sheet.rowCount).toBe(4);

    const csv = await sut.call('report.export', { token, query: { ...query, format: 'csv' }, headers: { lang: 'zh' } });
    expect(
      csv.body
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\n'),
    ).toEqual([
      '时间,设备,序列号,温度 (°C),Humidity',
      '2026-03-02 09:00,锅炉 RPT-1,RPT-1,15,50',
      '2026-03-02 09:00,锅炉 RPT-2,RPT-2,30,',
      '2026-03-02 10:00,锅炉 RPT-1,RPT-1,40,',
    ]);

    const pdf = await sut.call('report.export', { token, query: { ...query, format: 'pdf', name: '锅炉日报' }, headers: { lang: 'zh' } });
    expect(pdf.status).toBe(200);
    expect(
      Buffer.from(pdf.rawPayload as never)
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    const text = pdfText(pdf.rawPayload as never);
    expect(text[0]).toBe('锅炉日报');
    expect(text).toEqual(expect.arrayContaining(['时间', '设备', '温度 (°C)', '锅炉 RPT-2', '2026-03-02 10:00', '40']));
  });

  it("refuses another tenant's devices and group, and shows that tenant nothing of this one's reports", async () => {
    const other = await sut.login('uniformAdmin', 'Uniform#pw1');
    const query = { ...range, deviceIds: [devices['RPT-1']!], variables: ['temperature'] };
    expect(refusal(await sut.call('report.run', { token: other, query }))).toBe('NOT_FOUND');
    expect(refusal(await sut.call('report.run', { token: other, query: { ...range, groupId, variables: ['temperature'] } }))).toBe(
      'NOT_FOUND',
    );
    expect(refusal(await sut.call('report.export', { token: other, query: { ...query, format: 'xlsx' } }))).toBe('NOT_FOUND');
    const saved = ok(
      await sut.call('report.create', {
        token,
        body: { name: 'Private', deviceIds: [devices['RPT-1']!], variables: ['temperature'], fn: 'avg', cycle: '1h' },
      }),
    );
    expect(refusal(await sut.call('report.detail', { token: other, query: { id: saved.id } }))).toBe('NOT_FOUND');
    expect(ok(await sut.call('report.list', { token: other, query: {} })).rows).toEqual([]);
    expect(
      refusal(
        await sut.call('report.create', {
          token: other,
          body: { name: 'Theirs', groupId, variables: ['temperature'], fn: 'avg', cycle: '1h' },
        }),
      ),
    ).toBe('NOT_FOUND');
  });

  it('emails a daily report once to its contacts over SMTP, with its table as XLSX, however many schedulers tick', async () => {
    const contactId = ok(await sut.call('contact.create', { token, body: { name: 'Wang', email: 'wang@tango.test' } })).id;
    const body = {
      name: 'Daily boilers',
      groupId,
      variables: ['temperature'],
      fn: 'avg' as const,
      cycle: '1d' as const,
      frequency: 'daily' as const,
      hour: 8,
      contactIds: [contactId],
    };
    expect(refusal(await sut.call('report.create', { token, body: { ...body, contactIds: ['nobody'] } }))).toBe('NOT_FOUND');
    const { id } = ok(await sut.call('report.create', { token, body }));
    expect(ok(await sut.call('report.detail', { token, query: { id } }))).toMatchObject({ frequency: 'daily', lastSentAt: null });

    // 08:00 in Shanghai on 3 March: the report of 2 March, by two schedulers (two processes) ticking over the same minute.
    const deps = { db: sut.platform.context.db, timeseries: sut.platform.timeseries!, attachments: reportMailXlsx };
    const [previous, now] = [new Date('2026-03-02T23:59:30Z'), new Date('2026-03-03T00:00:30Z')];
    const sent = await Promise.all([createReportScheduler(deps).tick(previous, now), createReportScheduler(deps).tick(previous, now)]);
    expect(sent.flat()).toEqual([id]);
    // An earlier minute fires nothing.
    expect(await createReportScheduler(deps).tick(new Date('2026-03-02T23:58:00Z'), new Date('2026-03-02T23:59:00Z'))).toEqual([]);

    await waitFor('the report mailed', () => inbox.some((m) => m.subject.includes('Daily boilers')), 15_000);
    const mails = inbox.filter((m) => m.subject.includes('Daily boilers'));
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ to: 'wang@tango.test', subject: '报表 Report: Daily boilers (2026-03-02)' });
    expect(mails[0]!.text).toContain('2026-03-02\t锅炉 RPT-1 (RPT-1)\t23.333333333333332');
    expect(mails[0]!.text).toContain('2026-03-02\t锅炉 RPT-2 (RPT-2)\t30');
    expect(mails[0]!.text).toContain('The whole table is attached as XLSX');
    // The attachment, read back: the same table, numbers as numbers.
    expect(mails[0]!.attachments.map((a) => [a.filename, a.contentType])).toEqual([
      ['Daily boilers-2026-03-02.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    ]);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(mails[0]!.attachments[0]!.content as never);
    const sheet = book.worksheets[0]!;
    const cells = (n: number) => (sheet.getRow(n).values as unknown[]).slice(1);
    expect(cells(1)).toEqual(['时间', '设备', '序列号', '温度 (°C)']);
    expect(cells(2)).toEqual(['2026-03-02', '锅炉 RPT-1', 'RPT-1', 23.333333333333332]);
    expect(cells(3)).toEqual(['2026-03-02', '锅炉 RPT-2', 'RPT-2', 30]);
    expect(sheet.rowCount).toBe(3);
    await sut.platform.runner.catchUp();
    expect(ok(await sut.call('report.detail', { token, query: { id } })).lastSentAt).not.toBeNull();
  });
});
