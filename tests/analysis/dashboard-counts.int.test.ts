import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventStore } from '@iot/contracts/ports/event-store.ts';
import { createPostgresEventStore } from '@iot/infra/event-store/postgres.ts';
import { migrate, migrator } from '@iot/infra/migrate/migrate.ts';
import { migrationOwnerOf } from '@iot/projections/projection.ts';
import { createProjectionRunner, type ProjectionRunner } from '@iot/projections/runner.ts';
import { alarmsProjection } from '@iot/projections/alarm/alarms.ts';
import { activeAlarmCounts, activeAlarmRecount } from '@iot/projections/alarm/read.ts';
import { devicesProjection } from '@iot/projections/device/devices.ts';
import { deviceCounts, deviceCountsByGroup, deviceRecount } from '@iot/projections/device/read.ts';
import { groupsProjection } from '@iot/projections/group/groups.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';
import { event, manualAlarm } from '../fixtures/events.ts';

/**
 * The home dashboard's counters (issue 20): devices per group and active alarms per group and level are kept beside
 * the rows in the same transaction. Whatever happens to the rows, and after a rebuild, they equal a recount.
 */
describe('dashboard counters', () => {
  let db: TestDatabase;
  let store: EventStore;
  let runner: ProjectionRunner;
  const tenantId = 'counted';

  const append = (stream: string, type: string, data: Record<string, unknown>) =>
    store.append(
      `${stream}-${tenantId}.${String(data.deviceId ?? data.alarmId ?? data.groupId)}`,
      [event(type, data, { tenantId })],
      'any',
    );
  const device = (i: number, groupId: string | null) =>
    append('device', 'DeviceCreated', {
      deviceId: `d${i}`,
      sn: `SN-${i}`,
      name: `device ${i}`,
      productId: 'p1',
      modelVersion: 1,
      nodeType: 'direct',
      groupId,
      gatewayId: null,
      location: {},
      version: null,
      tags: [],
      remark: null,
      secretHash: `hash-${i}`,
    });
  /** The triggers a user (not the system) put on the read models' tables: none, the projections write the counters. */
  const triggersOnReadModels = async () =>
    (
      await db.pool.query<{ name: string }>(
        `select tgname as name from pg_trigger where not tgisinternal and tgrelid in ('rm_devices'::regclass, 'rm_alarms'::regclass)`,
      )
    ).rows.map((r) => r.name);
  const group = (groupId: string, parentId: string | null) =>
    append('group', 'GroupCreated', { groupId, name: groupId, type: 'site', location: null, sort: 0, parentId });

  /** The kept counts against a recount, for the tenant and for each station. */
  async function expectCountsEqualRecount() {
    await runner.catchUp();
    for (const stationId of [null, 'north', 'north-a', 'south']) {
      expect(await deviceCounts(db.pool, tenantId, { stationId })).toEqual(await deviceRecount(db.pool, tenantId, { stationId }));
    }
    for (const groupIds of [undefined, ['north', 'north-a'], ['south'], []]) {
      expect(await activeAlarmCounts(db.pool, tenantId, groupIds)).toEqual(await activeAlarmRecount(db.pool, tenantId, groupIds));
    }
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await createPostgresEventStore(db.pool);
    runner = createProjectionRunner(store, db.pool, [groupsProjection, devicesProjection, alarmsProjection], {
      migrate: migrator(db.pool),
    });
    await runner.setup();
    await runner.startAll();
  });
  afterAll(async () => {
    await runner?.stopAll();
    await store?.close();
    await db?.drop();
  });

  it('equal a recount after devices and alarms come, move, change and go, and after a rebuild', async () => {
    await group('north', null);
    await group('north-a', 'north');
    await group('south', null);
    const groups = ['north', 'north-a', 'south', null];
    await Promise.all(Array.from({ length: 40 }, (_, i) => device(i, groups[i % 4]!)));
    await expectCountsEqualRecount();
    expect(await deviceCounts(db.pool, tenantId, { stationId: null })).toEqual({ total: 40, online: 0, offline: 40, disabled: 0 });

    for (let i = 0; i < 40; i += 3) await append('device', 'DeviceWentOnline', { deviceId: `d${i}`, at: new Date().toISOString() });
    for (let i = 0; i < 40; i += 9)
      await append('device', 'DeviceWentOffline', { deviceId: `d${i}`, at: new Date().toISOString(), reason: 'timeout' });
    // Twice online changes nothing the second time.
    await append('device', 'DeviceWentOnline', { deviceId: 'd1', at: new Date().toISOString() });
    await append('device', 'DeviceWentOnline', { deviceId: 'd1', at: new Date().toISOString() });
    // A run of presence events applied as one statement: each device takes its last.
    const at0 = new Date().toISOString();
    await store.append(
      `device-${tenantId}.presence`,
      ['d10', 'd11', 'd10', 'd12', 'd10'].map((deviceId, i) =>
        event(i % 2 === 0 ? 'DeviceWentOnline' : 'DeviceWentOffline', { deviceId, at: at0, reason: 'disconnect' }, { tenantId }),
      ),
      'any',
    );
    await runner.catchUp();
    const status = await db.pool.query(`select id, status from rm_devices where id in ('d10', 'd11', 'd12') order by id`);
    expect(status.rows).toEqual([
      { id: 'd10', status: 'online' },
      { id: 'd11', status: 'offline' },
      { id: 'd12', status: 'offline' },
    ]);
    await append('device', 'DeviceDisabled', { deviceId: 'd2' });
    await append('device', 'DeviceDisabled', { deviceId: 'd5' });
    await append('device', 'DeviceEnabled', { deviceId: 'd5' });
    await append('device', 'DeviceMoved', { deviceId: 'd3', groupId: 'north' });
    await append('device', 'DeviceMoved', { deviceId: 'd6', groupId: 'north-a' });
    await append('device', 'DeviceMoved', { deviceId: 'd0', groupId: null });
    await append('device', 'DeviceUpdated', { deviceId: 'd4', name: 'renamed', location: {}, version: null, tags: [], remark: null });
    await append('device', 'DeviceDeleted', { deviceId: 'd7', sn: 'SN-7' });
    await append('device', 'DeviceDeleted', { deviceId: 'd9', sn: 'SN-9' });

    const at = new Date().toISOString();
    for (let i = 0; i < 30; i++) await append('alarm', 'AlarmRaised', manualAlarm(`a${i}`, `d${(i * 7) % 40}`, (i % 5) + 1, at));
    for (let i = 0; i < 30; i += 4) await append('alarm', 'AlarmProcessed', { alarmId: `a${i}`, note: 'seen' });
    for (let i = 0; i < 30; i += 3) await append('alarm', 'AlarmCleared', { alarmId: `a${i}`, value: 0, at, auto: true, note: null });
    await append('alarm', 'AlarmRepeated', { alarmId: 'a1', count: 2, value: 95, at });
    await append('alarm', 'AlarmAcknowledged', { alarmId: 'a2' });
    await expectCountsEqualRecount();

    const before = {
      devices: await deviceCounts(db.pool, tenantId, { stationId: null }),
      byGroup: await deviceCountsByGroup(db.pool, tenantId, { stationId: null }),
      alarms: await activeAlarmCounts(db.pool, tenantId),
    };
    expect(before.devices.total).toBe(38);
    expect(before.alarms.reduce((n, l) => n + l.count, 0)).toBe(20);

    // Damage the counters: a rebuild counts them anew from the log.
    await db.pool.query('update rm_device_counts set total = total + 100');
    await db.pool.query('update rm_alarm_counts set active = 0');
    await runner.rebuild(devicesProjection.name);
    await runner.rebuild(alarmsProjection.name);
    await expectCountsEqualRecount();
    expect(await deviceCounts(db.pool, tenantId, { stationId: null })).toEqual(before.devices);
    expect(await activeAlarmCounts(db.pool, tenantId)).toEqual(before.alarms);
    const sorted = (rows: typeof before.byGroup) => [...rows].sort((a, b) => String(a.groupId).localeCompare(String(b.groupId)));
    expect(sorted(await deviceCountsByGroup(db.pool, tenantId, { stationId: null }))).toEqual(sorted(before.byGroup));

    // The live run goes on counting after the rebuild.
    await device(100, 'south');
    await append('device', 'DeviceWentOnline', { deviceId: 'd100', at: new Date().toISOString() });
    await append('alarm', 'AlarmRaised', manualAlarm('a100', 'd100', 2, at));
    await expectCountsEqualRecount();
    expect((await deviceCounts(db.pool, tenantId, { stationId: 'south' })).online).toBe(
      (await deviceRecount(db.pool, tenantId, { stationId: 'south' })).online,
    );
  });
  it('are moved by every path of the projections themselves (no trigger), each step equal to a recount', async () => {
    expect(await triggersOnReadModels()).toEqual([]);
    await Promise.all(Array.from({ length: 12 }, (_, i) => device(200 + i, ['north', 'north-a', 'south'][i % 3]!)));
    await expectCountsEqualRecount();
    const total = (await deviceCounts(db.pool, tenantId, { stationId: null })).total;

    await append('device', 'DeviceMoved', { deviceId: 'd200', groupId: 'south' });
    await expectCountsEqualRecount();
    await append('device', 'DeviceDisabled', { deviceId: 'd201' });
    await expectCountsEqualRecount();
    const disabled = (await deviceCounts(db.pool, tenantId, { stationId: null })).disabled;
    expect(disabled).toBeGreaterThan(0);
    await append('device', 'DeviceEnabled', { deviceId: 'd201' });
    await expectCountsEqualRecount();
    expect((await deviceCounts(db.pool, tenantId, { stationId: null })).disabled).toBe(disabled - 1);
    const at = () => new Date().toISOString();
    await append('device', 'DeviceWentOnline', { deviceId: 'd202', at: at() });
    await expectCountsEqualRecount();
    // A run of presence events is one statement (the batch path): some devices come and go within it.
    for (const [deviceId, type] of [
      ['d202', 'DeviceWentOffline'],
      ['d203', 'DeviceWentOnline'],
      ['d204', 'DeviceWentOnline'],
      ['d203', 'DeviceWentOffline'],
      ['d205', 'DeviceWentOnline'],
    ] as const)
      await append('device', type, { deviceId, at: at() });
    await expectCountsEqualRecount();
    await append('device', 'DeviceWentOffline', { deviceId: 'd204', at: at() });
    await expectCountsEqualRecount();
    // An online, disabled device deleted takes itself out of every counter it was in.
    await append('device', 'DeviceDisabled', { deviceId: 'd205' });
    await append('device', 'DeviceDeleted', { deviceId: 'd205', sn: 'SN-205' });
    await expectCountsEqualRecount();
    await append('device', 'DeviceMoved', { deviceId: 'd206', groupId: null });
    await expectCountsEqualRecount();
    expect((await deviceCounts(db.pool, tenantId, { stationId: null })).total).toBe(total - 1);

    const raisedAt = at();
    await append('alarm', 'AlarmRaised', manualAlarm('a200', 'd207', 3, raisedAt));
    await expectCountsEqualRecount();
    await append('alarm', 'AlarmAcknowledged', { alarmId: 'a200' });
    await expectCountsEqualRecount();
    await append('alarm', 'AlarmProcessed', { alarmId: 'a200', note: 'seen' });
    await expectCountsEqualRecount();
    await append('alarm', 'AlarmProcessed', { alarmId: 'a200', note: 'seen again' });
    await expectCountsEqualRecount();
    await append('alarm', 'AlarmRaised', manualAlarm('a201', 'd208', 3, raisedAt));
    await append('alarm', 'AlarmRaised', manualAlarm('a202', 'no-such-device', 1, raisedAt));
    await expectCountsEqualRecount();
    await append('alarm', 'AlarmCleared', { alarmId: 'a201', value: 0, at: raisedAt, auto: false, note: null });
    await append('alarm', 'AlarmCleared', { alarmId: 'a200', value: 0, at: raisedAt, auto: true, note: null });
    await expectCountsEqualRecount();
    // Processing a cleared alarm moves no counter.
    await append('alarm', 'AlarmProcessed', { alarmId: 'a201', note: 'late' });
    await expectCountsEqualRecount();
    expect(await triggersOnReadModels()).toEqual([]);
  });

  it('are recounted, and their old triggers dropped, by the migration of a deployment that had them', async () => {
    // A deployment from before: triggers on the tables (here ones that count wrongly) and counters that drifted.
    await db.pool.query(`
      create function public.rm_device_counts_moved() returns trigger language plpgsql as $$
        begin update rm_device_counts set total = total + 1000; return null; end $$;
      create trigger rm_device_counts_insert after insert on rm_devices for each statement execute function public.rm_device_counts_moved();
      create trigger rm_device_counts_update after update on rm_devices for each statement execute function public.rm_device_counts_moved();
      create trigger rm_device_counts_delete after delete on rm_devices for each statement execute function public.rm_device_counts_moved();
      create function public.rm_alarm_counts_changed() returns trigger language plpgsql as $$
        begin update rm_alarm_counts set active = active + 1000; return null; end $$;
      create trigger rm_alarm_counts_insert after insert on rm_alarms for each row execute function public.rm_alarm_counts_changed();
      create trigger rm_alarm_counts_update after update on rm_alarms for each row execute function public.rm_alarm_counts_changed();
      create trigger rm_alarm_counts_delete after delete on rm_alarms for each row execute function public.rm_alarm_counts_changed();
      update rm_device_counts set online = online + 7;
      update rm_alarm_counts set unprocessed = unprocessed + 7;
      delete from schema_migrations where (owner, version) in (('projection:devices', 3), ('projection:alarms', 4));`);
    expect(await triggersOnReadModels()).toHaveLength(6);

    const applied = await migrate(db.pool, [migrationOwnerOf(devicesProjection), migrationOwnerOf(alarmsProjection)]);
    expect(applied).toEqual(['projection:devices:3', 'projection:alarms:4']);
    expect(await triggersOnReadModels()).toEqual([]);
    const functions = await db.pool.query(
      `select proname from pg_proc where proname in ('rm_device_counts_moved', 'rm_alarm_counts_changed')`,
    );
    expect(functions.rows).toEqual([]);
    await expectCountsEqualRecount();
    await device(300, 'north');
    await append('alarm', 'AlarmRaised', manualAlarm('a300', 'd300', 4, new Date().toISOString()));
    await expectCountsEqualRecount();
  });
});
