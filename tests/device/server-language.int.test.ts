import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * Text the server makes follows the language of whoever reads it (issue 22): an import's report, the history and
 * device files' headers, the reasons of dead letters.
 */
let sut: TestPlatform;
let admin: string;
const ok = (r: { status: number; body: string; json: { data: any } | null }) => {
  expect(r.status, r.body).toBe(200);
  return r.json!.data;
};

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'quebec', name: 'quebecCo', adminUsername: 'quebecAdmin', adminPassword: 'Quebec#pw1' });
  admin = await sut.login('quebecAdmin', 'Quebec#pw1');
}, 120_000);
afterAll(async () => sut?.stop());

describe('files and reasons the server makes', () => {
  it('tells each refused row in the reader’s language, from the Accept-Language or lang header', async () => {
    const { id } = ok(await sut.call('product.create', { token: admin, body: { name: 'Meter', code: 'LANG', type: 'direct' } }));
    ok(
      await sut.call('product.defineFunction', {
        token: admin,
        body: { productId: id, function: { type: 'property', name: 't', identifier: 't', dataType: { type: 'float' } } },
      }),
    );
    await sut.platform.runner.catchUp();
    const file = Buffer.from(
      [
        'sn,name,product,group,lng,lat',
        'L-1,one,NOPE,,,',
        'L-2,two,LANG,Nowhere,,',
        'L-3,three,LANG,,abc,31',
        'L-4,four,LANG,,,',
        'L-4,again,LANG,,,',
      ].join('\n'),
    );
    const done = ok(
      await sut.call('device.import', {
        token: admin,
        query: { jobId: 'lang-job-1', filename: 'devices.csv' },
        body: file,
        headers: { 'content-type': 'text/csv' },
      }),
    );
    expect(done).toMatchObject({ created: 1, failed: 4 });
    const report = async (headers: Record<string, string>) =>
      (await sut.call('device.importReport', { token: admin, query: { jobId: 'lang-job-1' }, headers })).body
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\n');
    const zh = await report({ 'accept-language': 'zh-CN,zh;q=0.9' });
    expect(zh).toEqual([
      '行号,序列号,字段,原因',
      '2,L-1,product,没有编码或名称为“NOPE”的产品',
      '3,L-2,group,没有名为“Nowhere”的分组',
      '4,L-3,lng,不是有效的数字',
      '6,L-4,sn,与第 5 行的序列号重复',
    ]);
    const en = await report({ lang: 'en' });
    expect(en).toEqual([
      'Row,Serial number,Field,Reason',
      '2,L-1,product,No product with the code or name “NOPE”',
      '3,L-2,group,No group named “Nowhere”',
      '4,L-3,lng,Not a valid number',
      '6,L-4,sn,Repeats the serial number of row 5',
    ]);
  });

  it("heads the history and device files and tells a dead letter's reason in the reader's language", async () => {
    const { id: productId } = ok(
      await sut.call('product.create', { token: admin, body: { name: 'Sensor', code: 'SENS', type: 'direct' } }),
    );
    ok(
      await sut.call('product.defineFunction', {
        token: admin,
        body: { productId, function: { type: 'property', name: '温度', identifier: 'temperature', dataType: { type: 'float' } } },
      }),
    );
    ok(await sut.call('product.publish', { token: admin, body: { id: productId } }));
    const device = ok(await sut.call('device.create', { token: admin, body: { sn: 'LANG-1', name: 'one', productId } }));
    await sut.platform.runner.catchUp();
    // What the intake keeps of a reading timed two days ahead (ingest/ writes its reason once, in English).
    await sut.db.pool.query(
      `insert into ingest_dead_letters (tenant_id, device_id, sn, topic, reason, payload, at) values ('quebec', $1, 'LANG-1', 'devices/LANG-1/telemetry', 'ts out of range', '{}', now())`,
      [device.id],
    );
    const reasons = async (lang: string) =>
      (
        ok(await sut.call('telemetry.deadLetters', { token: admin, query: { sn: 'LANG-1' }, headers: { lang } })).rows as {
          reason: string;
        }[]
      ).map((r) => r.reason);
    expect(await reasons('zh')).toEqual(['时间戳超出范围（2000 年至服务器时间后一天）']);
    expect(await reasons('en')).toEqual(['ts out of range']);
    const firstLine = (answer: { body: string }) => answer.body.replace(/^\uFEFF/, '').split('\n')[0];
    const inLanguage = (lang: string) => ({ token: admin, headers: { 'accept-language': lang } });
    const range = { id: device.id, variables: 'temperature', from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' };
    expect(firstLine(await sut.call('telemetry.export', { ...inLanguage('zh-CN'), query: range }))).toBe('时间,标识符,名称,值,显示值');
    expect(firstLine(await sut.call('telemetry.export', { ...inLanguage('en-US'), query: range }))).toBe(
      'Time,Identifier,Name,Value,Display',
    );
    expect(firstLine(await sut.call('device.export', inLanguage('en')))).toBe(
      'SN,Name,Product,Group,Gateway,Status,Enabled,Lng,Lat,Address,Version,Tags,Remark,Created',
    );
    expect(firstLine(await sut.call('device.export', inLanguage('zh-CN')))).toBe(
      '序列号,设备名称,产品,分组,网关,状态,启用,经度,纬度,地址,版本,标签,备注,创建时间',
    );
  });
});
