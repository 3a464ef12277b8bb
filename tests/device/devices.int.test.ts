import { createHash } from 'node:crypto';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { waitFor } from '../harness/process.ts';
import { holdTable, together } from '../harness/barrier.ts';
import { specOf, type BodyOf } from '../harness/api.ts';
import { seedDevices, seedGroup, seedProduct, temperature } from '../harness/fleet.ts';

/**
 * Device management against the real platform (issue 10): products with versioned thing models, devices
 * with platform-wide SNs and secrets shown once, groups, gateways, templates, import, timeline and as-of.
 */
let sut: TestPlatform;
let admin: string;
let other: string;

const ok = (r: { status: number; body: string; json: { data: any } | null }) => {
  expect(r.status, r.body).toBe(200);
  return r.json!.data;
};
const code = (r: { json: { data: any } | null }) => r.json?.data?.error;

/** A product with the temperature property, its thing model left a draft. */
const product = (token: string, codeName: string, type: BodyOf<'product.create'>['type'] = 'direct') =>
  seedProduct(sut, token, codeName, { type, publish: false });

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'lima', name: 'limaCo', adminUsername: 'limaAdmin', adminPassword: 'Lima#pw1' });
  await sut.seedTenant({ id: 'mike', name: 'mikeCo', adminUsername: 'mikeAdmin', adminPassword: 'Mike#pw1' });
  admin = await sut.login('limaAdmin', 'Lima#pw1');
  other = await sut.login('mikeAdmin', 'Mike#pw1');
}, 120_000);
afterAll(async () => sut?.stop());

describe('products and thing models', () => {
  it('publishes the draft as numbered versions; a published version never changes; devices keep their version', async () => {
    const id = await product(admin, 'TH-01');
    const published = ok(await sut.call('product.publish', { token: admin, body: { id } }));
    expect(published.version).toBe(1);
    const { secret, id: deviceId } = ok(
      await sut.call('device.create', { token: admin, body: { sn: 'TH01-0001', name: 'sensor 1', productId: id } }),
    );
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The draft changes; version 1 stays as it was, and the device still reports against it.
    ok(
      await sut.call('product.defineFunction', {
        token: admin,
        body: {
          productId: id,
          function: { ...temperature, identifier: 'humidity', name: '湿度', dataType: { type: 'int', min: 0, max: 100 } },
        },
      }),
    );
    expect(ok(await sut.call('product.publish', { token: admin, body: { id } })).version).toBe(2);
    // Publishing an unchanged draft mints no version.
    expect(ok(await sut.call('product.publish', { token: admin, body: { id } })).version).toBe(2);
    const detail = ok(await sut.call('device.detail', { token: admin, query: { id: deviceId } }));
    expect(detail.modelVersion).toBe(1);
    expect(detail.functions.map((f: { identifier: string }) => f.identifier)).toEqual(['temperature']);
    const p = ok(await sut.call('product.detail', { token: admin, query: { id } }));
    expect(p.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect(p.draftChanged).toBe(false);
  });

  it('refuses a repeated identifier and an invalid thing-model file with the row and field of each fault', async () => {
    const id = await product(admin, 'TH-02');
    const again = await sut.call('product.defineFunction', { token: admin, body: { productId: id, function: temperature } });
    expect(code(again)).toBe('IDENTIFIER_TAKEN');
    const bad = await sut.call('product.importModel', {
      token: admin,
      body: {
        productId: id,
        model: {
          functions: [
            temperature,
            { ...temperature, identifier: '9bad' },
            { type: 'property', name: 'x', identifier: 'x', dataType: { type: 'enum' } },
            { ...temperature },
          ],
        },
      },
    });
    expect(code(bad)).toBe('MODEL_INVALID');
    const faults = bad.json!.data.details.faults as { row: number; field: string }[];
    expect(faults).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ row: 2, field: 'identifier' }),
        expect.objectContaining({ row: 3, field: 'dataType.enumValues' }),
        expect.objectContaining({ row: 4, field: 'identifier' }),
      ]),
    );
    const exported = await sut.call('product.exportModel', { token: admin, query: { id } });
    expect(exported.headers['content-type']).toContain('application/json');
    const model = JSON.parse(exported.body);
    expect(ok(await sut.call('product.importModel', { token: admin, body: { productId: id, model } })).functions).toBe(1);
  });
});

describe('devices', () => {
  it('refuses an SN, platform-wide, to a registration that comes while the one holding it is being appended, and stores only the secret hash', async () => {
    const mine = await product(admin, 'SN-RACE');
    const theirs = await product(other, 'SN-RACE');
    const register = (token: string, productId: string, name: string) =>
      sut.call('device.create', { token, body: { sn: 'RACE-0001', name, productId } });
    // Given a registration that has claimed the SN and is held in its append (nothing of it committed yet),
    const gate = await holdTable(sut.db.pool, 'es_events');
    const first = register(admin, mine, 'first');
    await waitFor('the SN claimed', async () => (await sut.db.pool.query(`select 1 from claims where key = 'RACE-0001'`)).rowCount === 1);
    await gate.queued(1);
    // when another tenant registers the same SN, it is refused at once,
    expect(code(await register(other, theirs, 'second'))).toBe('SN_TAKEN');
    // and the first one succeeds once its append goes through.
    await gate.release();
    const winner = await first;
    const { secret, id } = ok(winner);
    const stored = await sut.db.pool.query<{ data: unknown }>(`select data from es_events where stream_name like $1`, [`device-%.${id}`]);
    const event = JSON.stringify(stored.rows[0]!.data);
    expect(event).not.toContain(secret);
    expect(event).toContain(createHash('sha256').update(secret).digest('hex'));
  });

  it('lets one of two registrations of an SN win when both have passed every check and claim it at the same moment', async () => {
    const mine = await product(admin, 'SN-TIE');
    const theirs = await product(other, 'SN-TIE');
    const register = (token: string, productId: string) =>
      sut.call('device.create', { token, body: { sn: 'TIE-0001', name: 'tie', productId } });
    // Two registrations from two tenants, both held at the claim itself, claim together: one wins.
    const answers = await together(holdTable(sut.db.pool, 'claims'), [() => register(admin, mine), () => register(other, theirs)]);
    expect(answers.map((a) => (a.status === 200 ? 200 : code(a))).sort()).toEqual([200, 'SN_TAKEN']);
    await sut.platform.runner.catchUp();
    expect((await sut.db.pool.query(`select 1 from rm_devices where sn = 'TIE-0001'`)).rowCount).toBe(1);
  });

  it("narrows the list to the group subtree (stationId) and never shows another tenant's devices", async () => {
    const pid = await product(admin, 'GRP');
    const east = await seedGroup(sut, admin, 'East');
    const eastSite = await seedGroup(sut, admin, 'East site', east);
    const west = await seedGroup(sut, admin, 'West');
    await seedDevices(sut, admin, pid, [
      ['G-1', east],
      ['G-2', eastSite],
      ['G-3', west],
    ]);
    const list = async (token: string, query: Record<string, string>) =>
      ok(await sut.call('device.list', { token, query: { pageSize: '100', sort: 'name', order: 'asc', ...query } })).rows.map(
        (r: { sn: string }) => r.sn,
      );
    expect(await list(admin, { stationId: east, name: 'G-' })).toEqual(['G-1', 'G-2']);
    expect(await list(admin, { groupId: west })).toEqual(['G-3']);
    expect(await list(other, { name: 'G-' })).toEqual([]);
    const count = ok(await sut.call('device.count', { token: admin, query: { stationId: eastSite } }));
    expect(count.total).toBe(1);
    // A group that still holds devices is in use.
    expect(code(await sut.call('group.delete', { token: admin, query: { id: west } }))).toBe('GROUP_IN_USE');
    // Another tenant cannot touch them, nor put its devices in our groups.
    const theirs = await product(other, 'GRP');
    expect(code(await sut.call('device.create', { token: other, body: { sn: 'G-X', name: 'x', productId: theirs, groupId: east } }))).toBe(
      'NOT_FOUND',
    );
    const anyOfOurs = (await sut.db.pool.query<{ id: string }>(`select id from rm_devices where sn = 'G-1'`)).rows[0]!.id;
    expect(code(await sut.call('device.delete', { token: other, query: { id: anyOfOurs } }))).toBe('NOT_FOUND');
  });

  it('puts devices behind a gateway, refuses a non-gateway, and keeps a gateway with sub-devices from deletion', async () => {
    const gwProduct = await product(admin, 'GW', 'gateway');
    const subProduct = await product(admin, 'SUB', 'subDevice');
    const gw = ok(await sut.call('device.create', { token: admin, body: { sn: 'GW-1', name: 'gateway', productId: gwProduct } })).id;
    const subs = [];
    for (const sn of ['SUB-1', 'SUB-2'])
      subs.push(ok(await sut.call('device.create', { token: admin, body: { sn, name: sn, productId: subProduct } })).id);
    await sut.platform.runner.catchUp();
    const bound = ok(await sut.call('gateway.bind', { token: admin, body: { gatewayId: gw, deviceIds: subs } }));
    expect(bound.ok).toBe(2);
    expect(code(await sut.call('gateway.bind', { token: admin, body: { gatewayId: subs[0], deviceIds: [subs[1]] } }))).toBe(
      'NOT_A_GATEWAY',
    );
    await sut.platform.runner.catchUp();
    expect(code(await sut.call('device.delete', { token: admin, query: { id: gw } }))).toBe('GATEWAY_HAS_DEVICES');
    const gateways = ok(await sut.call('gateway.list', { token: admin, query: { sn: 'GW-1' } }));
    expect(gateways.rows[0].subDeviceCount).toBe(2);
  });

  it('keeps template variables to property identifiers of the thing model', async () => {
    const pid = await product(admin, 'TPL');
    const tpl = ok(
      await sut.call('template.create', {
        token: admin,
        body: { name: 'Modbus 1', productId: pid, protocol: 'modbus-rtu', acquisitionPeriod: 10, retentionDays: 90 },
      }),
    ).id;
    const variable: BodyOf<'template.defineVariable'> = {
      templateId: tpl,
      name: '温度',
      attribute: 'CLIENT',
      identifier: 'temperature',
      modbus: { slaveAddress: 1, functionCode: 3, registerAddress: 100, dataFormat: 'float32', byteOrder: 'CDAB', scale: 0.1 },
    };
    ok(await sut.call('template.defineVariable', { token: admin, body: variable }));
    expect(code(await sut.call('template.defineVariable', { token: admin, body: { ...variable, identifier: 'pressure' } }))).toBe(
      'NOT_A_PROPERTY',
    );
    const bad = await sut.call('template.defineVariable', {
      token: admin,
      body: { ...variable, modbus: undefined, plc: { area: 'DB', offset: 4 } },
    });
    expect(bad.status).toBe(400);
  });

  it('edits only the fields a PUT names: absent fields stay, null clears', async () => {
    const pid = await product(admin, 'PART');
    const groupId = ok(await sut.call('group.create', { token: admin, body: { name: 'Part site', type: 'office' } })).id;
    const created = {
      sn: 'PART-1',
      name: 'partial',
      productId: pid,
      groupId,
      location: { lng: 121.47, lat: 31.23, address: 'Shanghai' },
      version: '1.0',
      tags: ['a'],
      remark: 'keep me',
    };
    const id = ok(await sut.call('device.create', { token: admin, body: created })).id;
    const detail = async () => ok(await sut.call('device.detail', { token: admin, query: { id } }));
    ok(await sut.call('device.update', { token: admin, body: { id, name: 'renamed' } }));
    expect(await detail()).toMatchObject({
      name: 'renamed',
      groupId,
      lng: 121.47,
      lat: 31.23,
      address: 'Shanghai',
      version: '1.0',
      tags: ['a'],
      remark: 'keep me',
    });
    ok(await sut.call('device.update', { token: admin, body: { id, remark: null, groupId: null, tags: [] } }));
    expect(await detail()).toMatchObject({ name: 'renamed', groupId: null, lng: 121.47, address: 'Shanghai', tags: [], remark: null });
    // A body naming nothing but the device changes nothing, and records nothing.
    const events = async () => (await sut.call('device.timeline', { token: admin, query: { id } })).json!.data.length;
    const before = await events();
    ok(await sut.call('device.update', { token: admin, body: { id } }));
    expect(await events()).toBe(before);
  });
});

describe('telemetry history', () => {
  it('takes samples from `from` (inclusive) to `to` (exclusive), as its OpenAPI says', async () => {
    const pid = await product(admin, 'RANGE');
    const device = ok(await sut.call('device.create', { token: admin, body: { sn: 'RANGE-1', name: 'range', productId: pid } }));
    const t = Date.UTC(2026, 0, 1, 8, 0, 0);
    const data = [
      { ts: t, values: { temperature: 1 } },
      { ts: t + 60_000, values: { temperature: 2 } },
    ];
    expect(ok(await sut.call('telemetry.report', { body: { sn: 'RANGE-1', secret: device.secret, data } })).accepted).toBe(2);
    const points = async (from: number, to: number) =>
      ok(
        await sut.call('telemetry.history', {
          token: admin,
          query: { id: device.id, variables: 'temperature', from: new Date(from).toISOString(), to: new Date(to).toISOString() },
        }),
      )[0].points.map((p: { value: number }) => p.value);
    await waitFor('both samples stored', async () => (await points(t, t + 60_001)).length === 2);
    expect(await points(t, t + 60_000)).toEqual([1]);
    const parameters = (sut.app.swagger() as any).paths[specOf('telemetry.history').path].get.parameters as {
      name: string;
      description?: string;
    }[];
    expect(parameters.find((p) => p.name === 'to')!.description).toMatch(/exclusive/);
    expect(parameters.find((p) => p.name === 'from')!.description).toMatch(/inclusive/);
  });
});

describe('exports', () => {
  it('leave negative numbers alone: history as CSV (the display with its unit escaped) and XLSX (numbers), devices as CSV', async () => {
    const pid = await product(admin, 'NEG');
    const device = ok(
      await sut.call('device.create', {
        token: admin,
        body: { sn: 'NEG-1', name: '=cmd|calc', productId: pid, location: { lng: -73.98, lat: 40.75, address: '-far west' } },
      }),
    );
    const t = Date.UTC(2026, 0, 2, 8, 0, 0);
    const data = [
      { ts: t, values: { temperature: -40 } },
      { ts: t + 60_000, values: { temperature: -12.5 } },
    ];
    ok(await sut.call('telemetry.report', { body: { sn: 'NEG-1', secret: device.secret, data } }));
    const query = { id: device.id, variables: 'temperature', from: new Date(t).toISOString(), to: new Date(t + 120_000).toISOString() };
    const csv = await waitFor('both samples exported', async () => {
      const r = await sut.call('telemetry.export', { token: admin, query, headers: { lang: 'en' } });
      const lines = r.body
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\n');
      return lines.length === 3 && lines;
    });
    expect(csv).toEqual([
      'Time,Identifier,Name,Value,Display',
      `${new Date(t).toISOString()},temperature,温度,-40,'-40 °C`,
      `${new Date(t + 60_000).toISOString()},temperature,温度,-12.5,'-12.5 °C`,
    ]);
    const xlsx = await sut.call('telemetry.export', { token: admin, query: { ...query, format: 'xlsx' } });
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx.rawPayload as never);
    const row = book.worksheets[0]!.getRow(2);
    expect([row.getCell(4).value, row.getCell(5).value]).toEqual([-40, '-40 °C']);
    await sut.platform.runner.catchUp();
    const devices = await sut.call('device.export', { token: admin, query: { sn: 'NEG-1' }, headers: { lang: 'en' } });
    const [head, line] = devices.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\n');
    const cells = Object.fromEntries(head!.split(',').map((h, i) => [h, line!.split(',')[i]]));
    expect(cells).toMatchObject({ Name: "'=cmd|calc", Lng: '-73.98', Lat: '40.75', Address: "'-far west" });
  });
});

describe('history for auditors', () => {
  it('shows who changed what with before and after, and rebuilds the device as it was at an instant', async () => {
    const pid = await product(admin, 'HIST');
    const id = ok(await sut.call('device.create', { token: admin, body: { sn: 'HIST-1', name: 'before', productId: pid } })).id;
    await new Promise((r) => setTimeout(r, 20));
    const between = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    ok(await sut.call('device.update', { token: admin, body: { id, name: 'after', tags: ['x'] } }));
    ok(await sut.call('device.disable', { token: admin, body: { id } }));
    const timeline = ok(await sut.call('device.timeline', { token: admin, query: { id } }));
    expect(timeline.map((e: { eventType: string }) => e.eventType)).toEqual(['DeviceDisabled', 'DeviceUpdated', 'DeviceCreated']);
    expect(timeline[1].actorName).toBe('limaAdmin');
    expect(timeline[1].changes).toEqual(
      expect.arrayContaining([
        { field: 'name', before: 'before', after: 'after' },
        { field: 'tags', before: [], after: ['x'] },
      ]),
    );
    const then = ok(await sut.call('device.asOf', { token: admin, query: { id, at: between } }));
    expect(then.device.name).toBe('before');
    expect(then.device.enabled).toBe(true);
    expect(then.product.functions.map((f: { identifier: string }) => f.identifier)).toEqual(['temperature']);
    const now = ok(await sut.call('device.asOf', { token: admin, query: { id, at: new Date().toISOString() } }));
    expect(now.device).toMatchObject({ name: 'after', enabled: false });
    const tenantThen = ok(await sut.call('audit.tenantAsOf', { token: admin, query: { at: between } }));
    const tenantNow = ok(await sut.call('audit.tenantAsOf', { token: admin, query: { at: new Date().toISOString() } }));
    // The device existed then and exists now; it was enabled then and is disabled now.
    expect(tenantNow.devices).toBe(tenantThen.devices);
    expect(tenantNow.enabledDevices).toBe(tenantThen.enabledDevices - 1);
    expect(tenantThen.products).toBe(tenantNow.products);
    expect(tenantThen.users).toBeGreaterThanOrEqual(1);
  });

  it('says a secret was rotated only once it was, in the as-of state and in the timeline', async () => {
    const pid = await product(admin, 'ROT');
    const id = ok(await sut.call('device.create', { token: admin, body: { sn: 'ROT-1', name: 'r', productId: pid } })).id;
    const asOf = async () =>
      ok(await sut.call('device.asOf', { token: admin, query: { id, at: new Date(Date.now() + 1000).toISOString() } }));
    expect((await asOf()).device.secretRotated).toBe(false);
    ok(await sut.call('device.rotateSecret', { token: admin, body: { id } }));
    expect((await asOf()).device.secretRotated).toBe(true);
    const [rotated] = ok(await sut.call('device.timeline', { token: admin, query: { id } }));
    expect(rotated).toMatchObject({ eventType: 'DeviceSecretRotated', changes: [{ field: 'secretRotated', before: false, after: true }] });
  });
});

const csv = (lines: string[]) => Buffer.from(`\uFEFF${lines.join('\n')}\n`);
async function upload(file: Buffer, filename: string, type: string, jobId = `job${Math.random().toString(36).slice(2, 12)}`) {
  return sut.call('device.import', {
    token: admin,
    query: { jobId, filename },
    body: file,
    headers: { 'content-type': type },
  });
}

describe('bulk import', () => {
  it('imports good rows, reports bad ones by row and field, and a re-run creates nothing twice', async () => {
    await product(admin, 'IMP');
    ok(await sut.call('group.create', { token: admin, body: { name: 'Import site', type: 'office', parentId: null } }));
    await sut.platform.runner.catchUp();
    const file = csv([
      'sn,name,product,group,lng,lat,tags',
      'IMP-1,one,IMP,Import site,121.47,31.23,a;b',
      'IMP-2,two,IMP,,,,',
      'IMP-3,three,NOPE,,,,',
      'IMP-1,dup,IMP,,,,',
      'IMP-4,four,IMP,,200,31,',
      'bad sn,five,IMP,,,,',
    ]);
    const first = ok(await upload(file, 'devices.csv', 'text/csv'));
    expect(first).toMatchObject({ total: 6, created: 2, unchanged: 0, failed: 4 });
    const report = await sut.call('device.importReport', {
      token: admin,
      query: { jobId: first.jobId },
      headers: { lang: 'en' },
    });
    const lines = report.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\n');
    expect(lines[0]).toBe('Row,Serial number,Field,Reason');
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 3).join(','))).toEqual([
      '4,IMP-3,product',
      '5,IMP-1,sn',
      '6,IMP-4,lng',
      '7,bad sn,sn',
    ]);
    const again = ok(await upload(file, 'devices.csv', 'text/csv'));
    expect(again).toMatchObject({ total: 6, created: 0, unchanged: 2, failed: 4 });
    await sut.platform.runner.catchUp();
    const rows = await sut.db.pool.query(`select sn, tags, lng from rm_devices where sn like 'IMP-%' order by sn`);
    expect(rows.rows).toEqual([
      { sn: 'IMP-1', tags: ['a', 'b'], lng: 121.47 },
      { sn: 'IMP-2', tags: [], lng: null },
    ]);
  });

  it('reads XLSX with Chinese headers', async () => {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('设备');
    sheet.addRow(['序列号', '名称', '产品']);
    sheet.addRow(['XLS-1', '一号', 'IMP']);
    sheet.addRow(['XLS-2', '二号', 'IMP']);
    const file = Buffer.from(await book.xlsx.writeBuffer());
    const done = ok(await upload(file, 'devices.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'));
    expect(done).toMatchObject({ total: 2, created: 2, failed: 0 });
  });

  it('reads XLSX cells as a spreadsheet shows them: rich text, numbers, formula results, columns left empty', async () => {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('devices');
    sheet.addRow(['sn', 'name', 'product', 'group', 'gateway', 'lng', 'lat', 'address']);
    sheet.addRow([
      'XLS-RICH-1',
      { richText: [{ text: '三' }, { text: '号', font: { bold: true } }] },
      'IMP',
      null,
      null,
      -73.98,
      { formula: '20+20.75', result: 40.75 },
      'x',
    ]);
    sheet.getCell('H3').value = 'only an address';
    const file = Buffer.from(await book.xlsx.writeBuffer());
    const done = ok(await upload(file, 'devices.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'));
    expect(done).toMatchObject({ total: 2, created: 1, failed: 1 });
    await sut.platform.runner.catchUp();
    const rows = await sut.db.pool.query(`select name, lng, lat from rm_devices where sn = 'XLS-RICH-1'`);
    expect(rows.rows).toEqual([{ name: '三号', lng: -73.98, lat: 40.75 }]);
  });

  it('refuses a wrong type, an empty file, missing columns and a file over 50 MB, and imports nothing from them', async () => {
    expect(code(await upload(Buffer.from('\x89PNG....'), 'devices.png', 'text/csv'))).toBe('FILE_TYPE');
    expect(code(await upload(Buffer.from('sn,name,product\n'), 'devices.csv', 'text/csv'))).toBe('FILE_EMPTY');
    expect(code(await upload(Buffer.from(''), 'devices.csv', 'text/csv'))).toBe('FILE_EMPTY');
    expect(code(await upload(csv(['sn,name', 'X-1,x']), 'devices.csv', 'text/csv'))).toBe('FILE_COLUMNS');
    expect(
      code(
        await upload(Buffer.from('not a zip at all'), 'devices.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'),
      ),
    ).toBe('FILE_TYPE');
    const huge = Buffer.alloc(50 * 1024 * 1024 + 1, 'a');
    const tooBig = await upload(huge, 'devices.csv', 'text/csv');
    expect(tooBig.status).toBe(413);
    expect(code(tooBig)).toBe('FILE_TOO_LARGE');
    await sut.platform.runner.catchUp();
    expect((await sut.db.pool.query(`select 1 from rm_devices where sn = 'X-1'`)).rowCount).toBe(0);
  });

  it('refuses a CSV it cannot parse (a stray quote, binary content) with 400 and the row, keeping the value out of the log', async () => {
    const cases = [
      { lines: ['sn,name,product', 'CSVQ-1,one,IMP', 'CSVQ-2,tw"oSecretMarkQ,IMP'], row: 3 },
      // The quote opened in row 2 is never closed: the row that cannot be read is the one it begins.
      { lines: ['sn,name,product', 'CSVQ-3,"three,IMP', 'CSVQ-4,fourSecretMarkQ,IMP'], row: 2 },
      { lines: ['sn,name,product', 'CSVQ-5,five,IMP', 'CSVQ-6,six\u0001SecretMarkQ,IMP'], row: 3 },
      { lines: ['sn,na"meSecretMarkQ,product', 'CSVQ-7,seven,IMP'], row: 1 },
    ];
    for (const { lines, row } of cases) {
      const r = await upload(csv(lines), 'devices.csv', 'text/csv');
      expect(r.status, r.body).toBe(400);
      expect(r.json).toMatchObject({ code: 400, data: { error: 'FILE_ROW_INVALID', details: { row } } });
      expect(r.json!.msg).toContain(String(row));
      expect(r.body).not.toContain('SecretMarkQ');
    }
    // The rows before the unreadable one are imported, as the answer says.
    await sut.platform.runner.catchUp();
    const before = await sut.db.pool.query(`select sn from rm_devices where sn like 'CSVQ-%' order by sn`);
    expect(before.rows.map((r) => r.sn)).toEqual(['CSVQ-1', 'CSVQ-5']);
    const binary = Buffer.concat([
      Buffer.from('sn,name,product\nCSVB-1,one,IMP\n'),
      Buffer.from([0x22, 0x00, 0xff, 0xfe, 0x22, 0x41, 0x0a]),
    ]);
    const r = await upload(binary, 'devices.csv', 'text/csv');
    expect(r.status, r.body).toBe(400);
    expect(r.json!.data).toMatchObject({ error: 'FILE_ROW_INVALID', details: { row: 3 } });
    const en = await sut.call('device.import', {
      token: admin,
      query: { jobId: 'csv-quote-en-1', filename: 'devices.csv' },
      body: csv(cases[0]!.lines),
      headers: { 'content-type': 'text/csv', lang: 'en' },
    });
    expect(en.json!.msg).toMatch(/^Row 3 of the file cannot be read/);
    expect(sut.logLines.join('\n')).not.toContain('SecretMarkQ');
    expect(sut.logLines.some((l) => l.includes('"level":50') && l.includes('import'))).toBe(false);
  });

  it('keeps import job ids per tenant: another tenant may use a finished job id of ours, and sees only its own report', async () => {
    const jobId = 'shared-job-0001';
    const mine = ok(await upload(csv(['sn,name,product', 'JOB-1,one,IMP', 'JOB-2,two,NOPE']), 'devices.csv', 'text/csv', jobId));
    expect(mine).toMatchObject({ total: 2, created: 1, failed: 1 });
    ok(await sut.call('product.create', { token: other, body: { name: 'P mike', code: 'MIKE-IMP', type: 'direct' } }));
    await sut.platform.runner.catchUp();
    const theirs = await sut.call('device.import', {
      token: other,
      query: { jobId, filename: 'devices.csv' },
      body: csv(['sn,name,product', 'JOB-3,three,MIKE-IMP']),
      headers: { 'content-type': 'text/csv' },
    });
    expect(ok(theirs)).toMatchObject({ total: 1, created: 1, failed: 0 });
    const report = (token: string) => sut.call('device.importReport', { token, query: { jobId } });
    expect((await report(admin)).body).toContain('JOB-2');
    expect((await report(other)).body).not.toContain('JOB-2');
    // The same tenant reusing a finished id is still one job: refused.
    expect(code(await upload(csv(['sn,name,product', 'JOB-4,four,IMP']), 'devices.csv', 'text/csv', jobId))).toBe('JOB_RUNNING');
  });
});

describe('audit trail', () => {
  it('filters by entity type, entity and action, and exports CSV and XLSX', async () => {
    await sut.platform.runner.catchUp();
    const trail = async (query: Record<string, string>) =>
      ok(await sut.call('audit.list', { token: admin, query: { pageSize: '100', ...query } })).rows as {
        eventType: string;
        stream: string;
      }[];
    const histId = (await sut.db.pool.query<{ id: string }>(`select id from rm_devices where sn = 'HIST-1'`)).rows[0]!.id;
    const devices = await trail({ entityType: 'device', entity: histId });
    expect(devices.map((r) => r.eventType).sort()).toEqual(['DeviceCreated', 'DeviceDisabled', 'DeviceUpdated']);
    expect((await trail({ entityType: 'product', eventType: 'ProductPublished' })).every((r) => r.stream.startsWith('product-'))).toBe(
      true,
    );
    expect(await trail({ entityType: 'device', entity: 'no-such-device' })).toEqual([]);
    expect(await trail({ entityType: 'device', entity: '%' })).toEqual([]);
    const xlsx = await sut.call('audit.export', { token: admin, query: { entityType: 'device', format: 'xlsx' } });
    expect(xlsx.status).toBe(200);
    expect(xlsx.headers['content-type']).toContain('spreadsheetml');
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx.rawPayload as never);
    expect(book.worksheets[0]!.rowCount).toBeGreaterThan(3);
    // Another tenant's trail never shows ours.
    expect((await trail({ entityType: 'device', entity: 'afte' })).length).toBeGreaterThan(0);
    const theirs = ok(await sut.call('audit.list', { token: other, query: { entity: histId } }));
    expect(theirs.total).toBe(0);
  });
});
