import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, refusal } from '../harness/api.ts';
import { event, manualAlarm } from '../fixtures/events.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * The operation center's data map, data big screen and configuration diagrams (issue 20) through the routes on the
 * embedded engines: points by coordinates and alarm state in the caller's scope, the big screen's figures, and
 * diagrams saved as events with the live values of their bound properties.
 *
 * Tenant xray: Site ─ Hall. Devices: P1 (Pump, Hall, 121.47/31.23, an active level-4 alarm and a cleared level-2 one),
 * P2 (Pump, Site, 116.40/39.90), M1 (Meter, Site, no coordinates).
 */
let sut: TestPlatform;
let token: string;
let theirs: string;
let site: string;
let hall: string;
let pump: string;
let meter: string;
const d: Record<string, string> = {};

async function alarm(id: string, device: string, level: number, raisedAt: string, clearedAt: string | null) {
  const meta = { tenantId: 'xray', occurredAt: raisedAt };
  const raised = manualAlarm(id, d[device]!, level, raisedAt, { variable: 'pressure', value: 9 });
  const events = [event('AlarmRaised', raised, meta)];
  if (clearedAt)
    events.push(
      event('AlarmCleared', { alarmId: id, value: 1, at: clearedAt, auto: true, note: null }, { ...meta, occurredAt: clearedAt }),
    );
  await sut.platform.context.store.append(`alarm-xray.${id}`, events, 'any');
}

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'xray', name: 'xrayCo', adminUsername: 'xrayAdmin', adminPassword: 'Xray#pw1' });
  await sut.seedTenant({ id: 'yankee', name: 'yankeeCo', adminUsername: 'yankeeAdmin', adminPassword: 'Yankee#pw1' });
  token = await sut.login('xrayAdmin', 'Xray#pw1');
  theirs = await sut.login('yankeeAdmin', 'Yankee#pw1');
  site = ok(await sut.call('group.create', { token, body: { name: 'Site', type: 'office' } })).id;
  hall = ok(await sut.call('group.create', { token, body: { name: 'Hall', type: 'site', parentId: site } })).id;
  pump = ok(await sut.call('product.create', { token, body: { name: 'Pump', code: 'PMP', type: 'direct' } })).id;
  meter = ok(await sut.call('product.create', { token, body: { name: 'Meter', code: 'MTR', type: 'direct' } })).id;
  const pressure = { type: 'property', name: '压力', identifier: 'pressure', dataType: { type: 'float', min: 0, max: 10, unit: 'MPa' } };
  ok(await sut.call('product.defineFunction', { token, body: { productId: pump, function: pressure } }));
  ok(await sut.call('product.publish', { token, body: { id: pump } }));
  const device = async (key: string, productId: string, groupId: string, lng: number | null, lat: number | null) =>
    (d[key] = ok(
      await sut.call('device.create', {
        token,
        body: { sn: `OPS-${key}`, name: `Dev ${key}`, productId, groupId, location: { lng, lat, address: lng ? `Addr ${key}` : null } },
      }),
    ).id);
  await device('P1', pump, hall, 121.47, 31.23);
  await device('P2', pump, site, 116.4, 39.9);
  await device('M1', meter, site, null, null);
  const now = Date.now();
  await alarm('x1', 'P1', 4, new Date(now - 3_600_000).toISOString(), null);
  await alarm('x2', 'P1', 2, new Date(now - 7_200_000).toISOString(), new Date(now - 7_000_000).toISOString());
  await sut.platform.timeseries!.insertTelemetry([
    { tenantId: 'xray', deviceId: d.P1!, productId: pump, variable: 'pressure', ts: new Date(now - 60_000), value: 3.5, text: null },
    { tenantId: 'xray', deviceId: d.P2!, productId: pump, variable: 'pressure', ts: new Date(now - 60_000), value: 1, text: null },
  ]);
  await sut.platform.runner.catchUp();
}, 120_000);
afterAll(async () => sut?.stop());

describe('data map', () => {
  it('places the devices with coordinates, coloured by their active alarms, and counts the ones without', async () => {
    const map = ok(await sut.call('operation.dataMap', { token }));
    expect(map).toMatchObject({ total: 3, unlocated: 1, truncated: false });
    // The device in alarm first.
    expect(map.points.map((p) => [p.sn, p.lng, p.lat, p.activeAlarms, p.alarmLevel, p.productName, p.groupName])).toEqual([
      ['OPS-P1', 121.47, 31.23, 1, 4, 'Pump', 'Hall'],
      ['OPS-P2', 116.4, 39.9, 0, null, 'Pump', 'Site'],
    ]);
  });

  it('filters by product, group subtree and status, within the caller’s station', async () => {
    const sns = async (query: Record<string, string>) => ok(await sut.call('operation.dataMap', { token, query })).points.map((p) => p.sn);
    expect(await sns({ status: 'alarm' })).toEqual(['OPS-P1']);
    expect(await sns({ status: 'offline' })).toEqual(['OPS-P1', 'OPS-P2']);
    expect(await sns({ status: 'online' })).toEqual([]);
    expect(await sns({ groupId: hall })).toEqual(['OPS-P1']);
    expect(await sns({ groupId: site })).toEqual(['OPS-P1', 'OPS-P2']);
    expect(await sns({ productId: meter })).toEqual([]);
    expect(ok(await sut.call('operation.dataMap', { token, query: { productId: meter } }))).toMatchObject({ total: 1, unlocated: 1 });
    expect(await sns({ stationId: hall })).toEqual(['OPS-P1']);
    expect(refusal(await sut.call('operation.dataMap', { token, query: { stationId: hall, groupId: site } }))).toBe('NOT_FOUND');
  });

  it('shows a device’s latest values on its card; another tenant sees neither its devices nor its values', async () => {
    const latest = ok(await sut.call('operation.dataMapLatest', { token, query: { id: d.P1! } }));
    expect(latest.map((v) => [v.variable, v.value, v.display])).toEqual([['pressure', 3.5, '3.5 MPa']]);
    expect(ok(await sut.call('operation.dataMap', { token: theirs })).points).toEqual([]);
    expect(refusal(await sut.call('operation.dataMapLatest', { token: theirs, query: { id: d.P1! } }))).toBe('NOT_FOUND');
    expect(refusal(await sut.call('operation.dataMap', { token: theirs, query: { groupId: site } }))).toBe('NOT_FOUND');
  });
});

describe('data big screen', () => {
  it('answers the dashboard’s figures with the last 7 days’ trend, levels and top devices', async () => {
    const screen = ok(await sut.call('operation.bigScreen', { token, query: { timeZone: 'Asia/Shanghai' } }));
    expect(screen.dashboard.devices).toMatchObject({ total: 3 });
    expect(screen.dashboard.alarms.active).toBe(1);
    expect(screen.dashboard.alarms.byLevel.find((l) => l.level === 4)?.count).toBe(1);
    expect(screen.trend.reduce((n, x) => n + x.alarms, 0)).toBe(2);
    expect(screen.byLevel.map((l) => [l.level, l.alarms])).toEqual([
      [2, 1],
      [4, 1],
    ]);
    expect(screen.topDevices.map((x) => [x.sn, x.alarms, x.active])).toEqual([['OPS-P1', 2, 1]]);
    expect(ok(await sut.call('operation.bigScreen', { token: theirs })).dashboard.devices.total).toBe(0);
  });
});

describe('configuration diagrams', () => {
  const widget = (more: Record<string, unknown>) => ({ id: 'w1', kind: 'value', x: 10, y: 20, label: 'Pressure', ...more });

  it('refuses a widget bound to another tenant’s device, a property without its device, a range upside down', async () => {
    const theirDevice = ok(await sut.call('product.create', { token: theirs, body: { name: 'Fan', code: 'FAN', type: 'direct' } })).id;
    const theirs1 = ok(
      await sut.call('device.create', { token: theirs, body: { sn: 'OPS-Y1', name: 'Fan 1', productId: theirDevice } }),
    ).id;
    for (const deviceId of [theirs1, 'no-such-device'])
      expect(
        refusal(await sut.call('diagram.create', { token, body: { name: 'Bad', widgets: [widget({ deviceId, property: 'pressure' })] } })),
      ).toBe('NOT_FOUND');
    expect(refusal(await sut.call('diagram.create', { token, body: { name: 'Bad', widgets: [widget({ property: 'pressure' })] } }))).toBe(
      'VALIDATION',
    );
    expect(
      refusal(
        await sut.call('diagram.create', {
          token,
          body: { name: 'Bad', widgets: [widget({ kind: 'gauge', deviceId: d.P1, property: 'pressure', min: 10, max: 0 })] },
        }),
      ),
    ).toBe('VALIDATION');
    expect(refusal(await sut.call('diagram.create', { token, body: { name: 'Bad', widgets: [widget({}), widget({ x: 50 })] } }))).toBe(
      'VALIDATION',
    );
  });

  it('is created, saved with widgets, shows their live values, and is deleted', async () => {
    const { id } = ok(await sut.call('diagram.create', { token, body: { name: 'Pump room' } }));
    expect(ok(await sut.call('diagram.detail', { token, query: { id } }))).toMatchObject({
      name: 'Pump room',
      background: '#0B1A3A',
      widgets: [],
    });
    const widgets = [
      widget({ deviceId: d.P1, property: 'pressure' }),
      widget({ id: 'w2', kind: 'gauge', deviceId: d.P1, property: 'pressure', min: 0, max: 10 }),
      widget({ id: 'w3', kind: 'lamp', deviceId: d.P2, property: 'pressure', onValue: 1 }),
      widget({ id: 'w4', kind: 'text', label: 'Hall 1' }),
    ];
    ok(await sut.call('diagram.update', { token, body: { id, name: 'Pump room', remark: 'north', background: '#102030', widgets } }));
    const saved = ok(await sut.call('diagram.detail', { token, query: { id } }));
    expect(saved).toMatchObject({ remark: 'north', background: '#102030' });
    expect(saved.widgets.map((w) => [w.id, w.kind, w.deviceId, w.property, w.min, w.max, w.onValue])).toEqual([
      ['w1', 'value', d.P1, 'pressure', null, null, null],
      ['w2', 'gauge', d.P1, 'pressure', 0, 10, null],
      ['w3', 'lamp', d.P2, 'pressure', null, null, 1],
      ['w4', 'text', null, null, null, null, null],
    ]);
    const values = ok(await sut.call('diagram.values', { token, query: { id } }));
    expect(values.map((v) => [v.deviceId, v.property, v.value, v.display])).toEqual([
      [d.P1, 'pressure', 3.5, '3.5 MPa'],
      [d.P2, 'pressure', 1, '1 MPa'],
    ]);
    // A device outside the caller's station shows no value.
    expect(ok(await sut.call('diagram.values', { token, query: { id, stationId: site } })).length).toBe(2);
    expect(ok(await sut.call('diagram.values', { token, query: { id, stationId: hall } })).map((v) => v.deviceId)).toEqual([d.P1]);

    expect(ok(await sut.call('diagram.list', { token, query: { name: 'pump' } })).rows.map((r) => [r.name, r.widgets.length])).toEqual([
      ['Pump room', 4],
    ]);
    // Another tenant sees nothing of it.
    expect(refusal(await sut.call('diagram.detail', { token: theirs, query: { id } }))).toBe('NOT_FOUND');
    expect(refusal(await sut.call('diagram.values', { token: theirs, query: { id } }))).toBe('NOT_FOUND');
    expect(refusal(await sut.call('diagram.update', { token: theirs, body: { id, name: 'Mine' } }))).toBe('NOT_FOUND');
    expect(ok(await sut.call('diagram.list', { token: theirs })).total).toBe(0);

    ok(await sut.call('diagram.delete', { token, query: { id } }));
    expect(refusal(await sut.call('diagram.detail', { token, query: { id } }))).toBe('NOT_FOUND');
    expect(refusal(await sut.call('diagram.update', { token, body: { id, name: 'Again' } }))).toBe('NOT_FOUND');
    expect(ok(await sut.call('diagram.list', { token })).total).toBe(0);
  });
});
