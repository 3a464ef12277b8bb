import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/** An import's report is in the language of whoever reads it (issue 22): its header and every reason. */
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

describe('the import report', () => {
  it('tells each refused row in the reader’s language, from the Accept-Language or lang header', async () => {
    const { id } = ok(await sut.call('POST', '/api/iot/product', { token: admin, body: { name: 'Meter', code: 'LANG', type: 'direct' } }));
    ok(
      await sut.call('PUT', '/api/iot/product/function', {
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
      await sut.call('POST', '/api/iot/device/import', {
        token: admin,
        query: { jobId: 'lang-job-1', filename: 'devices.csv' },
        body: file,
        headers: { 'content-type': 'text/csv' },
      }),
    );
    expect(done).toMatchObject({ created: 1, failed: 4 });
    const report = async (headers: Record<string, string>) =>
      (await sut.call('GET', '/api/iot/device/import/report', { token: admin, query: { jobId: 'lang-job-1' }, headers })).body
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
});
