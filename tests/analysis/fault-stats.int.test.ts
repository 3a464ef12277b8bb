import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, manualAlarm } from '../fixtures/events.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * Business and fault statistics, projects and garages, and the home dashboard (issue 20), over a known set of
 * alarms whose counts and durations are worked out by hand below, through real PostgreSQL and the HTTP adapter.
 *
 * Groups of tenant tango:  East (root) ─ Garage A ─ Bay 1      West (root) ─ Garage B
 *                                     └ Project X
 * Devices: D1 in Bay 1 and D2 in Garage A (product Alpha), D3 in Project X and D4 in Garage B (product Beta), D5 in none.
 */
let sut: TestPlatform;
let token: string;
let otherToken: string;
const g: Record<string, string> = {};
const d: Record<string, string> = {};
const range = { from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' };

const ok = (r: { status: number; body: string; json: { data: any } | null }) => {
  expect(r.status, r.body).toBe(200);
  return r.json!.data;
};

/** An alarm raised (and maybe cleared) at the given instants, appended as the alarm stream's events. */
async function alarm(id: string, device: string, level: number, raisedAt: string, clearedAt: string | null) {
  const meta = { tenantId: 'tango', occurredAt: raisedAt };
  const events = [event('AlarmRaised', manualAlarm(id, d[device]!, level, raisedAt), meta)];
  if (clearedAt)
    events.push(
      event('AlarmCleared', { alarmId: id, value: 20, at: clearedAt, auto: true, note: null }, { ...meta, occurredAt: clearedAt }),
    );
  await sut.platform.context.store.append(`alarm-tango.${id}`, events, 'any');
}

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'tango', name: 'tangoCo', adminUsername: 'tangoAdmin', adminPassword: 'Tango#pw1' });
  await sut.seedTenant({ id: 'uniform', name: 'uniformCo', adminUsername: 'uniformAdmin', adminPassword: 'Uniform#pw1' });
  token = await sut.login('tangoAdmin', 'Tango#pw1');
  otherToken = await sut.login('uniformAdmin', 'Uniform#pw1');
  const group = async (key: string, name: string, type: string, parent?: string) =>
    (g[key] = ok(await sut.call('group.create', { token, body: { name, type, parentId: parent ? g[parent] : null } })).id);
  await group('east', 'East', 'institution');
  await group('west', 'West', 'institution');
  await group('garageA', 'Garage A', 'garage', 'east');
  await group('bay1', 'Bay 1', 'office', 'garageA');
  await group('projectX', 'Project X', 'project', 'east');
  await group('garageB', 'Garage B', 'garage', 'west');
  const product = async (name: string, code: string) =>
    ok(await sut.call('product.create', { token, body: { name, code, type: 'direct' } })).id as string;
  const alpha = await product('Alpha', 'ALP');
  const beta = await product('Beta', 'BET');
  const device = async (key: string, productId: string, groupId?: string) =>
    (d[key] = ok(
      await sut.call('device.create', { token, body: { sn: `SN-${key}`, name: `Dev ${key}`, productId, groupId: groupId ?? null } }),
    ).id);
  await device('D1', alpha, g.bay1);
  await device('D2', alpha, g.garageA);
  await device('D3', beta, g.projectX);
  await device('D4', beta, g.garageB);
  await device('D5', beta);
  await sut.platform.runner.catchUp();
  // Durations (s) within the range: a1 600, a2 3600, a3 14400 (active, up to the range's end), a4 1800,
  // a5 50400 (cleared after the range: cut at its end; 57600 to clear), a7 30. a6 is raised before the range.
  await alarm('a1', 'D1', 1, '2026-01-01T01:00:00Z', '2026-01-01T01:10:00Z');
  await alarm('a2', 'D1', 3, '2026-01-01T02:00:00Z', '2026-01-01T03:00:00Z');
  await alarm('a3', 'D2', 3, '2026-01-01T20:00:00Z', null);
  await alarm('a4', 'D3', 2, '2026-01-01T05:00:00Z', '2026-01-01T05:30:00Z');
  await alarm('a5', 'D4', 5, '2026-01-01T10:00:00Z', '2026-01-02T02:00:00Z');
  await alarm('a6', 'D5', 1, '2025-12-31T23:00:00Z', '2025-12-31T23:05:00Z');
  await alarm('a7', 'D1', 1, '2026-01-01T12:00:00Z', '2026-01-01T12:00:30Z');
  await sut.platform.runner.catchUp();
}, 180_000);
afterAll(() => sut?.stop());

const byId = (rows: Array<{ groupId: string | null }>): Record<string, any> =>
  Object.fromEntries(rows.map((r) => [r.groupId ?? 'none', r]));

describe('fault statistics', () => {
  it('business: summary, levels, days in Asia/Shanghai, products, own groups and top devices as worked out by hand', async () => {
    const s = ok(await sut.call('analysis.business', { token, query: { ...range, top: 2 } }));
    expect(s.summary).toEqual({ alarms: 6, active: 1, cleared: 5, devices: 4, durationSeconds: 70830, meanClearSeconds: 12726 });
    expect(s.byLevel).toEqual([
      { level: 1, alarms: 2, durationSeconds: 630 },
      { level: 2, alarms: 1, durationSeconds: 1800 },
      { level: 3, alarms: 2, durationSeconds: 18000 },
      { level: 5, alarms: 1, durationSeconds: 50400 },
    ]);
    expect(s.byDay).toEqual([
      { day: '2026-01-01', alarms: 5, cleared: 5 },
      { day: '2026-01-02', alarms: 1, cleared: 0 },
    ]);
    expect(s.byProduct.map((p: any) => [p.productName, p.alarms, p.devices, p.durationSeconds])).toEqual([
      ['Alpha', 4, 2, 18630],
      ['Beta', 2, 2, 52200],
    ]);
    const groups = byId(s.byGroup);
    expect([groups[g.bay1!]?.alarms, groups[g.garageA!]?.alarms, groups[g.projectX!]?.alarms, groups[g.garageB!]?.alarms]).toEqual([
      3, 1, 1, 1,
    ]);
    expect(s.topDevices.map((t: any) => [t.deviceId, t.alarms, t.durationSeconds])).toEqual([
      [d.D1, 3, 4230],
      [d.D4, 1, 50400],
    ]);
  });

  it('national: by top-level group, with mean time to clear per region', async () => {
    const s = ok(await sut.call('analysis.nationalFault', { token, query: range }));
    const groups = byId(s.byGroup);
    expect(groups[g.east!]).toMatchObject({
      groupName: 'East',
      alarms: 5,
      active: 1,
      devices: 3,
      durationSeconds: 20430,
      meanClearSeconds: 1507.5,
    });
    expect(groups[g.west!]).toMatchObject({
      groupName: 'West',
      alarms: 1,
      active: 0,
      devices: 1,
      durationSeconds: 50400,
      meanClearSeconds: 57600,
    });
  });

  it('region: drills into a group, its children as buckets, nothing outside it', async () => {
    const s = ok(await sut.call('analysis.regionFault', { token, query: { ...range, groupId: g.east } }));
    expect(s.summary.alarms).toBe(5);
    expect(s.byGroup.map((r: any) => [r.groupName, r.alarms])).toEqual([
      ['Garage A', 4],
      ['Project X', 1],
    ]);
  });

  it('garage and project: by the nearest group of that type, alarms outside any left out', async () => {
    const garages = ok(await sut.call('analysis.garageFault', { token, query: range }));
    expect(garages.summary.alarms).toBe(5);
    expect(garages.byGroup.map((r: any) => [r.groupName, r.alarms, r.durationSeconds])).toEqual([
      ['Garage A', 4, 18630],
      ['Garage B', 1, 50400],
    ]);
    const projects = ok(await sut.call('analysis.projectFault', { token, query: range }));
    expect(projects.summary).toMatchObject({ alarms: 1, durationSeconds: 1800, meanClearSeconds: 1800 });
    expect(projects.byGroup.map((r: any) => r.groupName)).toEqual(['Project X']);
  });

  it('stationId narrows to the subtree; a group outside it, or of another tenant, is not found; another tenant sees nothing', async () => {
    const west = ok(await sut.call('analysis.nationalFault', { token, query: { ...range, stationId: g.west } }));
    expect(west.summary.alarms).toBe(1);
    expect(west.byGroup.map((r: any) => [r.groupName, r.alarms])).toEqual([['Garage B', 1]]);
    const outside = await sut.call('analysis.regionFault', { token, query: { ...range, groupId: g.garageA, stationId: g.west } });
    expect(outside.status).toBe(404);
    const foreign = await sut.call('analysis.garageFault', { token: otherToken, query: { ...range, groupId: g.garageA } });
    expect(foreign.status).toBe(404);
    const other = ok(await sut.call('analysis.business', { token: otherToken, query: range }));
    expect(other.summary).toMatchObject({ alarms: 0, devices: 0, durationSeconds: 0, meanClearSeconds: null });
    expect(other.byGroup).toEqual([]);
  });

  it('refuses a range that ends before it starts', async () => {
    const r = await sut.call('analysis.business', { token, query: { from: range.to, to: range.from } });
    expect(r.status).toBe(400);
  });

  it('exports a table as CSV and XLSX, titles in the caller language', async () => {
    const csv = await sut.call('analysis.garageFaultExport', {
      token,
      query: { ...range, table: 'groups' },
      headers: { 'accept-language': 'en' },
    });
    expect(csv.status).toBe(200);
    const lines = csv.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\n');
    expect(lines[0]).toContain('Group');
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 3).join(','))).toEqual(['Garage A,garage,4', 'Garage B,garage,1']);
    const xlsx = await sut.call('analysis.businessExport', { token, query: { ...range, table: 'levels', format: 'xlsx' } });
    expect(xlsx.status).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
    const sheet = book.worksheets[0]!;
    expect(sheet.rowCount).toBe(5);
    expect(sheet.getRow(5).values).toEqual([undefined, 5, 1, 50400]);
  });
});

describe('projects and garages', () => {
  it('lists garages with devices, online rate, active alarms and alarms in the range', async () => {
    const page = ok(await sut.call('analysis.garages', { token, query: { ...range, sort: 'name', order: 'asc' } }));
    expect(page.total).toBe(2);
    expect(page.rows.map((r: any) => [r.name, r.parentName, r.devices, r.online, r.onlineRate, r.activeAlarms, r.alarms])).toEqual([
      ['Garage A', 'East', 2, 0, 0, 1, 4],
      ['Garage B', 'West', 1, 0, 0, 0, 1],
    ]);
    const projects = ok(await sut.call('analysis.projects', { token, query: range }));
    expect(projects.rows.map((r: any) => [r.name, r.devices, r.alarms])).toEqual([['Project X', 1, 1]]);
    const west = ok(await sut.call('analysis.garages', { token, query: { ...range, stationId: g.west } }));
    expect(west.rows.map((r: any) => r.name)).toEqual(['Garage B']);
    expect(ok(await sut.call('analysis.garages', { token: otherToken, query: range })).total).toBe(0);
  });
});

describe('home dashboard', () => {
  it("counts devices, active alarms by level, today's samples and recent alarms, within the station", async () => {
    const ts = sut.platform.timeseries!;
    const now = Date.now();
    await ts.insertTelemetry(
      [0, 1, 2].map((i) => ({
        tenantId: 'tango',
        deviceId: d.D1!,
        productId: '',
        variable: 'temperature',
        ts: new Date(now - i * 1000),
        value: 20 + i,
        text: null,
      })),
    );
    const board = ok(await sut.call('analysis.dashboard', { token }));
    expect(board.devices).toMatchObject({ total: 5, online: 0 });
    expect(board.alarms.byLevel).toEqual([1, 2, 3, 4, 5].map((level) => ({ level, count: level === 3 ? 1 : 0 })));
    expect(board.alarms.active).toBe(1);
    expect(board.dataPoints).toEqual({ today: 3, perSecond: 0.05 });
    expect(board.recentAlarms[0]).toMatchObject({ id: 'a3', status: 'active', level: 3 });
    expect(board.recentAlarms).toHaveLength(7);
    expect(board.recentOperations.length).toBeGreaterThan(0);
    const west = ok(await sut.call('analysis.dashboard', { token, query: { stationId: g.west } }));
    expect(west.devices.total).toBe(1);
    expect(west.alarms.active).toBe(0);
    expect(west.dataPoints.today).toBe(0);
    expect(west.recentAlarms.map((a: any) => a.id)).toEqual(['a5']);
    const other = ok(await sut.call('analysis.dashboard', { token: otherToken }));
    expect(other.devices.total).toBe(0);
    expect(other.dataPoints.today).toBe(0);
    expect(other.recentAlarms).toEqual([]);
  });
});
