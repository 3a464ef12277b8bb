import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, refusal } from '../harness/api.ts';
import { event, manualAlarm } from '../fixtures/events.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * The data big screen designer (issue 20) through the routes on the embedded engines: a screen's layout saved and
 * loaded as events, its widgets' data, bindings refused across tenants, and read-only share links that expire, are
 * revoked and cannot be altered.
 */
let sut: TestPlatform;
let token: string;
let theirs: string;
let pump: string;
let device: string;
let theirDevice: string;

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'zulu', name: 'zuluCo', adminUsername: 'zuluAdmin', adminPassword: 'Zulu#pw1' });
  await sut.seedTenant({ id: 'yoke', name: 'yokeCo', adminUsername: 'yokeAdmin', adminPassword: 'Yoke#pw1' });
  token = await sut.login('zuluAdmin', 'Zulu#pw1');
  theirs = await sut.login('yokeAdmin', 'Yoke#pw1');
  pump = ok(await sut.call('product.create', { token, body: { name: 'Pump', code: 'PMP', type: 'direct' } })).id;
  const pressure = { type: 'property', name: '压力', identifier: 'pressure', dataType: { type: 'float', min: 0, max: 10, unit: 'MPa' } };
  ok(await sut.call('product.defineFunction', { token, body: { productId: pump, function: pressure } }));
  ok(await sut.call('product.publish', { token, body: { id: pump } }));
  device = ok(await sut.call('device.create', { token, body: { sn: 'BS-1', name: 'Pump one', productId: pump } })).id;
  const theirPump = ok(await sut.call('product.create', { token: theirs, body: { name: 'Pump', code: 'PMP', type: 'direct' } })).id;
  theirDevice = ok(await sut.call('device.create', { token: theirs, body: { sn: 'BS-2', name: 'Theirs', productId: theirPump } })).id;
  const now = Date.now();
  await sut.platform.timeseries!.insertTelemetry([
    { tenantId: 'zulu', deviceId: device, productId: pump, variable: 'pressure', ts: new Date(now - 60_000), value: 4.5, text: null },
  ]);
  const raisedAt = new Date(now - 3_600_000).toISOString();
  await sut.platform.context.store.append(
    'alarm-zulu.z1',
    [
      event('AlarmRaised', manualAlarm('z1', device, 3, raisedAt, { variable: 'pressure', value: 9 }), {
        tenantId: 'zulu',
        occurredAt: raisedAt,
      }),
    ],
    'any',
  );
  await sut.platform.runner.catchUp();
}, 120_000);
afterAll(async () => sut?.stop());

const widgets = () => [
  {
    id: 'g',
    kind: 'gauge',
    x: 0,
    y: 0,
    w: 6,
    h: 6,
    title: 'Pressure',
    binding: { source: 'device', deviceId: device, variable: 'pressure' },
    options: { min: 0, max: 10 },
  },
  { id: 'a', kind: 'alarmList', x: 6, y: 0, w: 10, h: 8, title: 'Alarms', binding: { source: 'alarm' } },
  { id: 'c', kind: 'clock', x: 16, y: 0, w: 8, h: 2 },
];

describe('big screens', () => {
  it('saves a layout and loads it back, with what its widgets show', async () => {
    const { id } = ok(await sut.call('screen.create', { token, body: { name: 'Plant' } }));
    ok(await sut.call('screen.save', { token, body: { id, widgets: widgets() } }));
    ok(await sut.call('screen.rename', { token, body: { id, name: 'Plant floor' } }));
    const saved = ok(await sut.call('screen.detail', { token, query: { id } }));
    expect(saved.name).toBe('Plant floor');
    expect(saved.widgets).toEqual([
      { ...widgets()[0], binding: { source: 'device', deviceId: device, variable: 'pressure' } },
      { ...widgets()[1], binding: { source: 'alarm', level: null, status: null }, options: {} },
      { ...widgets()[2], title: '', binding: { source: 'none' }, options: {} },
    ]);
    const data = ok(await sut.call('screen.data', { token, query: { id } }));
    expect(data.widgets.g).toMatchObject({ source: 'device', deviceName: 'Pump one', value: 4.5, unit: 'MPa' });
    expect(data.widgets.a).toMatchObject({
      source: 'alarm',
      byLevel: [{ level: 3, count: 1 }],
      rows: [{ id: 'z1', level: 3, device: 'Pump one' }],
    });
    expect(data.widgets.c).toBeUndefined();
    expect(ok(await sut.call('screen.list', { token, query: { name: 'floor' } })).rows.map((r) => r.name)).toEqual(['Plant floor']);
  });

  it('refuses bad layouts: outside the grid, duplicate ids, a bound clock, another tenant’s device or statistic', async () => {
    const { id } = ok(await sut.call('screen.create', { token, body: { name: 'Checks' } }));
    const save = async (ws: unknown[]) => refusal(await sut.call('screen.save', { token, body: { id, widgets: ws as never } }));
    const [g, a] = widgets();
    expect(await save([{ ...g, x: 20, w: 6 }])).toBe('VALIDATION');
    expect(await save([g, { ...a, id: 'g' }])).toBe('VALIDATION');
    expect(await save([{ ...g, kind: 'clock' }])).toBe('VALIDATION');
    expect(await save([{ ...g, kind: 'sparkle' }])).toBe('VALIDATION');
    expect(await save(Array.from({ length: 61 }, (_, i) => ({ id: `w${i}`, kind: 'text', x: 0, y: 0, w: 1, h: 1 })))).toBe('VALIDATION');
    expect(await save([{ ...g, binding: { source: 'device', deviceId: theirDevice, variable: 'pressure' } }])).toBe('NOT_FOUND');
    expect(await save([{ ...g, kind: 'line', binding: { source: 'stat', statTaskId: 'no-such-task' } }])).toBe('NOT_FOUND');
  });

  it('keeps screens to their tenant', async () => {
    const { id } = ok(await sut.call('screen.create', { token, body: { name: 'Ours', widgets: widgets() } }));
    expect(refusal(await sut.call('screen.detail', { token: theirs, query: { id } }))).toBe('NOT_FOUND');
    expect(refusal(await sut.call('screen.data', { token: theirs, query: { id } }))).toBe('NOT_FOUND');
    expect(refusal(await sut.call('screen.save', { token: theirs, body: { id, widgets: [] } }))).toBe('NOT_FOUND');
    expect(refusal(await sut.call('screen.share', { token: theirs, body: { id, hours: 1 } }))).toBe('NOT_FOUND');
    expect(refusal(await sut.call('screen.delete', { token: theirs, query: { id } }))).toBe('NOT_FOUND');
    expect(ok(await sut.call('screen.list', { token: theirs })).rows.map((r) => r.name)).not.toContain('Ours');
  });

  it('shares a screen by a link that works logged out until it is revoked, expires or is altered', async () => {
    const { id } = ok(await sut.call('screen.create', { token, body: { name: 'Lobby', widgets: widgets() } }));
    const { id: shareId, token: linkToken } = ok(await sut.call('screen.share', { token, body: { id, hours: 24 } }));
    const [link] = ok(await sut.call('screen.shares', { token, query: { id } }));
    expect(link).toMatchObject({ id: shareId, revoked: false, expired: false, stationId: null, stationName: null });
    // The token is answered once: neither the list nor the event log holds it, only its secret's hash.
    expect(JSON.stringify(link)).not.toContain(linkToken.split('.')[1]);
    const recorded = await sut.platform.context.store.readStream(`screen-zulu.${id}`);
    expect(JSON.stringify(recorded)).not.toContain(linkToken.split('.')[1]);
    const shared = ok(await sut.call('screen.shared', { query: { token: linkToken } }));
    expect(shared.screen).toMatchObject({ id, name: 'Lobby' });
    expect(shared.data.widgets.g).toMatchObject({ source: 'device', value: 4.5 });

    // Altered: another share id with this secret, this share id with another secret, or no secret at all.
    const [, secret] = linkToken.split('.');
    for (const bad of [`other.${secret}`, `${shareId}.${secret!.slice(0, -2)}AA`, `${shareId}.`, 'nonsense']) {
      const answer = await sut.call('screen.shared', { query: { token: bad } });
      expect([answer.status, refusal(answer)]).toEqual([403, 'SCREEN_LINK_INVALID']);
    }

    // Expired: a link whose time has passed.
    const past = new Date(Date.now() - 60_000).toISOString();
    const oldHash = createHash('sha256').update('secret-of-the-old-link').digest('hex');
    await sut.platform.context.store.append(
      `screen-zulu.${id}`,
      [event('ScreenShared', { screenId: id, shareId: 'old', tokenHash: oldHash, expiresAt: past }, { tenantId: 'zulu' })],
      'any',
    );
    await sut.platform.runner.catchUp();
    const old = ok(await sut.call('screen.shares', { token, query: { id } })).find((s) => s.id === 'old')!;
    expect(old.expired).toBe(true);
    const expired = await sut.call('screen.shared', { query: { token: 'old.secret-of-the-old-link' } });
    expect([expired.status, refusal(expired)]).toEqual([401, 'SCREEN_LINK_EXPIRED']);

    // Revoked.
    ok(await sut.call('screen.unshare', { token, query: { id, shareId } }));
    expect(ok(await sut.call('screen.shares', { token, query: { id } })).find((s) => s.id === shareId)?.revoked).toBe(true);
    const revoked = await sut.call('screen.shared', { query: { token: linkToken } });
    expect([revoked.status, refusal(revoked)]).toEqual([403, 'SCREEN_LINK_INVALID']);

    // A deleted screen's links stop working.
    const live = ok(await sut.call('screen.share', { token, body: { id, hours: 1 } }));
    ok(await sut.call('screen.shared', { query: { token: live.token } }));
    ok(await sut.call('screen.delete', { token, query: { id } }));
    expect(refusal(await sut.call('screen.shared', { query: { token: live.token } }))).toBe('SCREEN_LINK_INVALID');
    expect(refusal(await sut.call('screen.detail', { token, query: { id } }))).toBe('NOT_FOUND');
  });

  it('narrows a link shared by a user narrowed to a station to that station: no other station’s device, alarm or figure', async () => {
    // Given two stations, a pump in each with a value, an alarm and an hourly figure.
    const north = ok(await sut.call('group.create', { token, body: { name: 'North', type: 'site' } })).id;
    const south = ok(await sut.call('group.create', { token, body: { name: 'South', type: 'site' } })).id;
    const inNorth = ok(
      await sut.call('device.create', { token, body: { sn: 'BS-N', name: 'North pump', productId: pump, groupId: north } }),
    ).id;
    const inSouth = ok(
      await sut.call('device.create', { token, body: { sn: 'BS-S', name: 'South pump', productId: pump, groupId: south } }),
    ).id;
    const now = Date.now();
    await sut.platform.timeseries!.insertTelemetry(
      [
        [inNorth, 1.5],
        [inSouth, 7.5],
      ].map(([deviceId, value]) => ({
        tenantId: 'zulu',
        deviceId: deviceId as string,
        productId: pump,
        variable: 'pressure',
        ts: new Date(now - 30_000),
        value: value as number,
        text: null,
      })),
    );
    const raisedAt = new Date(now - 600_000).toISOString();
    for (const [alarmId, deviceId] of [
      ['zn', inNorth],
      ['zs', inSouth],
    ] as const)
      await sut.platform.context.store.append(
        `alarm-zulu.${alarmId}`,
        [
          event('AlarmRaised', manualAlarm(alarmId, deviceId, 2, raisedAt, { variable: 'pressure', value: 9 }), {
            tenantId: 'zulu',
            occurredAt: raisedAt,
          }),
        ],
        'any',
      );
    const task = (dimension: string, name: string) =>
      sut.call('statTask.create', {
        token,
        body: { name, dataType: 'deviceData', productId: pump, attribute: 'pressure', statType: 'max', cycle: '1h', dimension },
      });
    const perDevice = ok(await task('device', 'Peak per pump')).id;
    const perTenant = ok(await task('tenant', 'Peak of the plant')).id;
    const windowStart = new Date(Math.floor((now - 5 * 3_600_000) / 3_600_000) * 3_600_000);
    await sut.platform.timeseries!.putStatResults('zulu', perDevice, [
      { windowStart, key: inNorth, value: 2, samples: 1 },
      { windowStart, key: inSouth, value: 8, samples: 1 },
    ]);
    await sut.platform.timeseries!.putStatResults('zulu', perTenant, [{ windowStart, key: 'zulu', value: 8, samples: 2 }]);
    await sut.platform.runner.catchUp();
    const gauge = (id: string, deviceId: string) => ({
      ...widgets()[0]!,
      id,
      binding: { source: 'device', deviceId, variable: 'pressure' },
    });
    const line = (id: string, statTaskId: string, y: number) => ({
      id,
      kind: 'line',
      x: 0,
      y,
      w: 8,
      h: 6,
      binding: { source: 'stat', statTaskId },
    });
    const board = [
      gauge('n', inNorth),
      { ...gauge('s', inSouth), x: 6 },
      { ...widgets()[1]!, x: 12 },
      line('pd', perDevice, 8),
      line('pt', perTenant, 14),
      { id: 'map', kind: 'map', x: 12, y: 10, w: 8, h: 6, binding: { source: 'map' } },
      { ...gauge('ln', inNorth), kind: 'line', x: 20, y: 10, w: 4, h: 6 },
      { ...gauge('ls', inSouth), kind: 'line', x: 20, y: 16, w: 4, h: 6 },
    ];
    const { id } = ok(await sut.call('screen.create', { token, body: { name: 'Stations', widgets: board } }));

    // When a user narrowed to North shares it, and the link is opened logged out.
    const { token: link } = ok(await sut.call('screen.share', { token, body: { id, hours: 1 }, query: { stationId: north } }));
    const { data } = ok(await sut.call('screen.shared', { query: { token: link } }));
    // The screen's share links name the station a link is narrowed to.
    expect(ok(await sut.call('screen.shares', { token, query: { id } })).map((s) => [s.stationId, s.stationName])).toEqual([
      [north, 'North'],
    ]);

    // Then only North shows; South's pump, alarm and figures, and the tenant's sum over both, are not there.
    expect(data.widgets.n).toMatchObject({ deviceName: 'North pump', value: 1.5 });
    expect(data.widgets.s).toMatchObject({ deviceName: null, value: null, online: null });
    expect(JSON.stringify(data)).not.toContain('South pump');
    expect(data.widgets.a).toMatchObject({ source: 'alarm', byLevel: [{ level: 2, count: 1 }] });
    expect(data.widgets.a?.source === 'alarm' && data.widgets.a.rows.map((r) => r.id)).toEqual(['zn']);
    expect(data.widgets.pd?.source === 'stat' && data.widgets.pd.points.map((p) => [p.key, p.value])).toEqual([[inNorth, 2]]);
    expect(data.widgets.pt?.source === 'stat' && data.widgets.pt.points).toEqual([]);
    // The map counts North's one pump (without coordinates), none of the tenant's others.
    expect(data.widgets.map).toMatchObject({ source: 'map', points: [], total: 1, unlocated: 1 });
    // The charts' recent values, asked once when the page opens: North's pump only, and only when asked.
    const opened = ok(await sut.call('screen.shared', { query: { token: link, recent: 'true' } }));
    expect(opened.recent?.ln?.map(([, value]) => value)).toEqual([1.5]);
    expect(opened.recent?.ls).toEqual([]);
    expect(ok(await sut.call('screen.shared', { query: { token: link } })).recent).toBeUndefined();

    // A link shared for the whole tenant shows both, as the tenant's screen does.
    const whole = ok(await sut.call('screen.share', { token, body: { id, hours: 1 } }));
    const all = ok(await sut.call('screen.shared', { query: { token: whole.token } })).data;
    expect(all.widgets.s).toMatchObject({ deviceName: 'South pump', value: 7.5 });
    expect(all.widgets.pd?.source === 'stat' && all.widgets.pd.points.length).toBe(2);
    expect(all.widgets.pt?.source === 'stat' && all.widgets.pt.points.map((p) => p.value)).toEqual([8]);
  });

  it('places a group’s or a product’s devices on a map widget by their coordinates, with status and alarm level', async () => {
    const east = ok(await sut.call('group.create', { token, body: { name: 'East', type: 'site' } })).id;
    const west = ok(await sut.call('group.create', { token, body: { name: 'West', type: 'site' } })).id;
    const meter = ok(await sut.call('product.create', { token, body: { name: 'Meter', code: 'MTR', type: 'direct' } })).id;
    const place = async (sn: string, productId: string, groupId: string, lng: number | null, lat: number | null) =>
      ok(
        await sut.call('device.create', {
          token,
          body: { sn, name: sn, productId, groupId, location: { lng, lat, address: null } },
        }),
      ).id;
    const shanghai = await place('MAP-E1', pump, east, 121.47, 31.23);
    await place('MAP-E2', meter, east, 120.15, 30.28);
    await place('MAP-E3', pump, east, null, null);
    await place('MAP-W1', pump, west, 104.06, 30.67);
    const raisedAt = new Date(Date.now() - 60_000).toISOString();
    await sut.platform.context.store.append(
      'alarm-zulu.zm',
      [
        event('AlarmRaised', manualAlarm('zm', shanghai, 4, raisedAt, { variable: 'pressure', value: 9 }), {
          tenantId: 'zulu',
          occurredAt: raisedAt,
        }),
      ],
      'any',
    );
    await sut.platform.runner.catchUp();
    const map = (id: string, binding: Record<string, unknown>) => ({
      id,
      kind: 'map',
      x: 0,
      y: 0,
      w: 12,
      h: 10,
      binding: { source: 'map', ...binding },
    });
    const { id } = ok(
      await sut.call('screen.create', {
        token,
        body: { name: 'Map', widgets: [map('east', { groupId: east }), { ...map('pumps', { groupId: east, productId: pump }), x: 12 }] },
      }),
    );
    const data = ok(await sut.call('screen.data', { token, query: { id } })).widgets;
    expect(data.east).toMatchObject({ source: 'map', total: 3, unlocated: 1 });
    expect(data.east?.source === 'map' && data.east.points.map((p) => [p.sn, p.lng, p.lat, p.online, p.alarmLevel])).toEqual([
      ['MAP-E1', 121.47, 31.23, false, 4],
      ['MAP-E2', 120.15, 30.28, false, null],
    ]);
    expect(data.pumps?.source === 'map' && data.pumps.points.map((p) => p.sn)).toEqual(['MAP-E1']);

    // A map shows devices only; another tenant's group or product is refused.
    const save = async (w: Record<string, unknown>) =>
      refusal(await sut.call('screen.save', { token, body: { id, widgets: [w as never] } }));
    expect(await save({ ...map('g', {}), kind: 'gauge' })).toBe('VALIDATION');
    const theirGroup = ok(await sut.call('group.create', { token: theirs, body: { name: 'Theirs', type: 'site' } })).id;
    expect(await save(map('m', { groupId: theirGroup }))).toBe('NOT_FOUND');
    expect(await save(map('m', { productId: 'no-such-product' }))).toBe('NOT_FOUND');
  });
});
