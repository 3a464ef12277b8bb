import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, refusal } from '../harness/api.ts';
import { event, manualAlarm } from '../fixtures/events.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { waitFor } from '../harness/process.ts';
import { holdTable } from '../harness/barrier.ts';

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

describe('topo elements and the SCADA widgets of a diagram', () => {
  it('creates, changes, lists and deletes a topo element; its image is an uploaded file of the tenant', async () => {
    const { id } = ok(await sut.call('topoElement.create', { token, body: { name: 'Blower', width: 80, height: 60, remark: 'hall 2' } }));
    expect(
      refusal(await sut.call('topoElement.create', { token, body: { name: 'Bad', width: 80, height: 60, imageFileId: 'no-such-file' } })),
    ).toBe('NOT_FOUND');
    expect(refusal(await sut.call('topoElement.create', { token, body: { name: 'Tiny', width: 2, height: 60 } }))).toBe('VALIDATION');
    ok(await sut.call('topoElement.update', { token, body: { id, name: 'Blower', width: 120, height: 60, remark: null } }));
    expect(ok(await sut.call('topoElement.list', { token })).rows.map((e) => [e.name, e.width, e.height, e.remark, e.imageFileId])).toEqual(
      [['Blower', 120, 60, null, null]],
    );
    // Another tenant neither sees nor changes it, nor places it in a diagram.
    expect(ok(await sut.call('topoElement.list', { token: theirs })).total).toBe(0);
    expect(refusal(await sut.call('topoElement.update', { token: theirs, body: { id, name: 'Mine', width: 10, height: 10 } }))).toBe(
      'NOT_FOUND',
    );
    const placed = { id: 'e1', kind: 'element', x: 0, y: 0, elementId: id };
    expect(refusal(await sut.call('diagram.create', { token: theirs, body: { name: 'Theirs', widgets: [placed] } }))).toBe('NOT_FOUND');
    const diagram = ok(await sut.call('diagram.create', { token, body: { name: 'Blowers', widgets: [placed] } })).id;
    expect(ok(await sut.call('diagram.detail', { token, query: { id: diagram } })).widgets[0]).toMatchObject({
      kind: 'element',
      elementId: id,
    });

    // Placed in a diagram, the element stays; once the diagram is gone it may go.
    const inUse = await sut.call('topoElement.delete', { token, query: { id } });
    expect(refusal(inUse)).toBe('TOPO_ELEMENT_IN_USE');
    expect(inUse.json?.msg).toContain('Blowers');
    ok(await sut.call('diagram.delete', { token, query: { id: diagram } }));
    ok(await sut.call('topoElement.delete', { token, query: { id } }));
    expect(ok(await sut.call('topoElement.list', { token })).total).toBe(0);
    expect(refusal(await sut.call('topoElement.delete', { token, query: { id } }))).toBe('NOT_FOUND');
    expect(refusal(await sut.call('diagram.create', { token, body: { name: 'Gone', widgets: [placed] } }))).toBe('NOT_FOUND');
  });

  it('never lets a diagram place a topo element that is deleted at the same instant, whichever of the two checks first', async () => {
    const element = async (name: string) => ok(await sut.call('topoElement.create', { token, body: { name, width: 80, height: 60 } })).id;
    const placing = (elementId: string) => [{ id: 'e1', kind: 'element' as const, x: 0, y: 0, elementId }];
    const diagram = ok(await sut.call('diagram.create', { token, body: { name: 'Race room' } })).id;
    /**
     * Appends are held: `first` runs until it waits to append; then `second` until it asks to append too (it queues
     * behind the first in the store's group commit) or is answered. Then both go on.
     */
    const race = async <A, B>(first: () => Promise<A>, second: () => Promise<B>, secondStream: string): Promise<[A, B]> => {
      const store = sut.platform.context.store;
      const append = store.append;
      const appending: string[] = [];
      const gate = await holdTable(sut.db.pool, 'es_events');
      try {
        const one = first();
        await gate.queued(1);
        store.append = (...args) => (appending.push(args[0]), append.apply(store, args));
        let answered = false;
        const two = second().finally(() => (answered = true));
        await waitFor(
          'the second to ask to append or be answered',
          () => answered || appending.some((s) => s.endsWith(secondStream)),
          20_000,
          10,
        );
        await gate.release();
        return [await one, await two];
      } finally {
        store.append = append;
        await gate.release();
      }
    };

    // The delete has read no placement and waits to append when the save comes: the save sees the element going.
    const valve = await element('Race valve');
    const [deleted, saved] = await race(
      () => sut.call('topoElement.delete', { token, query: { id: valve } }),
      () => sut.call('diagram.update', { token, body: { id: diagram, name: 'Race room', widgets: placing(valve) } }),
      `.${diagram}`,
    );
    expect([deleted.status, refusal(saved)]).toEqual([200, 'NOT_FOUND']);

    // The save has found the element and waits to append when the delete comes: the delete sees the placement.
    const pump = await element('Race pump');
    const [placed, refused] = await race(
      () => sut.call('diagram.update', { token, body: { id: diagram, name: 'Race room', widgets: placing(pump) } }),
      () => sut.call('topoElement.delete', { token, query: { id: pump } }),
      `.${pump}`,
    );
    expect([placed.status, refusal(refused)]).toEqual([200, 'TOPO_ELEMENT_IN_USE']);
    expect(ok(await sut.call('topoElement.list', { token })).rows.map((e) => e.name)).toContain('Race pump');
    // Saved without it, the diagram no longer keeps it.
    ok(await sut.call('diagram.update', { token, body: { id: diagram, name: 'Race room', widgets: [] } }));
    ok(await sut.call('topoElement.delete', { token, query: { id: pump } }));
  });

  it('names a topo element once per tenant, whatever its case; a deleted or renamed element frees its name', async () => {
    const create = (name: string, as = token) => sut.call('topoElement.create', { token: as, body: { name, width: 80, height: 60 } });
    const first = ok(await create('Compressor')).id;
    expect(refusal(await create('compressor '))).toBe('TOPO_ELEMENT_NAME_TAKEN');
    ok(await create('Compressor', theirs));
    const second = ok(await create('Chiller')).id;
    expect(refusal(await sut.call('topoElement.update', { token, body: { id: second, name: 'COMPRESSOR', width: 80, height: 60 } }))).toBe(
      'TOPO_ELEMENT_NAME_TAKEN',
    );
    ok(await sut.call('topoElement.update', { token, body: { id: first, name: 'Compressor A', width: 80, height: 60 } }));
    ok(await create('Compressor'));
    ok(await sut.call('topoElement.delete', { token, query: { id: second } }));
    ok(await create('Chiller'));
    // Two at once: one wins.
    const both = await Promise.all([create('Cooler'), create('Cooler')]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(ok(await sut.call('topoElement.list', { token, query: { name: 'Cooler' } })).total).toBe(1);
  });

  it("refuses a widget bound to a property or a command that is not in the device's thing model", async () => {
    const bind = (more: { kind: string } & Record<string, unknown>) =>
      sut.call('diagram.create', { token, body: { name: 'Checked', widgets: [{ id: 'w1', x: 0, y: 0, ...more }] } });
    // The meter's product has no property at all; the pump's has a read-only pressure.
    expect(refusal(await bind({ kind: 'value', deviceId: d.M1, property: 'pressure' }))).toBe('DIAGRAM_BINDING_INVALID');
    expect(refusal(await bind({ kind: 'tank', deviceId: d.P1, property: 'level' }))).toBe('DIAGRAM_BINDING_INVALID');
    expect(refusal(await bind({ kind: 'switch', deviceId: d.P1, command: { kind: 'property', identifier: 'pressure' } }))).toBe(
      'DIAGRAM_BINDING_INVALID',
    );
    expect(refusal(await bind({ kind: 'switch', deviceId: d.P1, command: { kind: 'service', identifier: 'start' } }))).toBe(
      'DIAGRAM_BINDING_INVALID',
    );
    // A command only on a switch; an edge only between the diagram's widgets.
    expect(refusal(await bind({ kind: 'pump', deviceId: d.P1, property: 'pressure', command: { kind: 'service', identifier: 'x' } }))).toBe(
      'VALIDATION',
    );
    const pump = { id: 'p1', kind: 'pump', x: 0, y: 0, deviceId: d.P1, property: 'pressure', thresholds: [{ value: 5, color: '#E5484D' }] };
    expect(
      refusal(
        await sut.call('diagram.create', {
          token,
          body: { name: 'Edge', widgets: [pump], edges: [{ id: 'e', source: 'p1', target: 'x' }] },
        }),
      ),
    ).toBe('VALIDATION');
    const pipe = { id: 'q1', kind: 'pipe', x: 200, y: 0, deviceId: d.P2, property: 'pressure' };
    const { id } = ok(
      await sut.call('diagram.create', {
        token,
        body: { name: 'Flow', widgets: [pump, pipe], edges: [{ id: 'e1', source: 'p1', target: 'q1' }] },
      }),
    );
    expect(ok(await sut.call('diagram.detail', { token, query: { id } }))).toMatchObject({
      edges: [{ id: 'e1', source: 'p1', target: 'q1' }],
      canvas: { lineStyle: 'curve', arrow: 'triangle', scale: 1, locked: false },
      widgets: [{ kind: 'pump', thresholds: [{ value: 5, color: '#E5484D' }] }, { kind: 'pipe' }],
    });
  });

  it('a switch bound to a writable property sends its command to the device through the device command route', async () => {
    const productId = ok(await sut.call('product.create', { token, body: { name: 'Valve', code: 'VLV', type: 'direct' } })).id;
    for (const fn of [
      { type: 'property', name: '开启', identifier: 'open', access: 'rw', dataType: { type: 'bool' } },
      { type: 'service', name: '复位', identifier: 'reset', invoke: 'async', inputs: [] },
    ])
      ok(await sut.call('product.defineFunction', { token, body: { productId, function: fn } }));
    ok(await sut.call('product.publish', { token, body: { id: productId } }));
    const valve = ok(await sut.call('device.create', { token, body: { sn: 'OPS-V1', name: 'Valve 1', productId } }));
    const widgets = [
      {
        id: 's1',
        kind: 'switch',
        x: 0,
        y: 0,
        label: 'Open',
        deviceId: valve.id,
        property: 'open',
        command: { kind: 'property', identifier: 'open' },
      },
      { id: 's2', kind: 'switch', x: 0, y: 90, label: 'Reset', deviceId: valve.id, command: { kind: 'service', identifier: 'reset' } },
    ];
    const { id } = ok(await sut.call('diagram.create', { token, body: { name: 'Valves', widgets } }));
    const saved = ok(await sut.call('diagram.detail', { token, query: { id } }));
    expect(saved.widgets.map((w) => [w.id, w.command])).toEqual([
      ['s1', { kind: 'property', identifier: 'open' }],
      ['s2', { kind: 'service', identifier: 'reset' }],
    ]);

    // The device is connected and listens on its downlink; the switch's "on" is what the screen sends after the confirm.
    const mqttUrl = (sut.platform.mqtt as unknown as { url: string }).url;
    const device = mqtt.connect(mqttUrl, { username: 'OPS-V1', password: valve.secret, clientId: 'ops-v1', reconnectPeriod: 0 });
    try {
      await new Promise((resolve, reject) => device.once('connect', resolve).once('error', reject));
      const got: Array<{ topic: string; body: { kind: string; identifier: string; params: unknown } }> = [];
      device.on('message', (topic, payload) => got.push({ topic, body: JSON.parse(String(payload)) }));
      await device.subscribeAsync('devices/OPS-V1/command/+', { qos: 1 });
      const on = saved.widgets[0]!;
      expect(
        ok(
          await sut.call('device.command', {
            token,
            body: { id: valve.id, kind: on.command!.kind, identifier: on.command!.identifier, params: { value: 1 } },
          }),
        ),
      ).toMatchObject({ status: 'sent' });
      await waitFor('the command at the device', () => got.length >= 1, 10_000);
      expect(got[0]!.body).toMatchObject({ kind: 'property', identifier: 'open', params: { value: 1 } });
      // Another tenant's operator cannot send to this device.
      expect(
        refusal(
          await sut.call('device.command', {
            token: theirs,
            body: { id: valve.id, kind: 'property', identifier: 'open', params: { value: 0 } },
          }),
        ),
      ).toBe('NOT_FOUND');
    } finally {
      device.end(true);
    }
    const commands = ok(await sut.call('device.commands', { token, query: { id: valve.id } }));
    expect(commands.map((c) => [c.kind, c.identifier, c.params])).toEqual([['property', 'open', { value: 1 }]]);
  });
});
