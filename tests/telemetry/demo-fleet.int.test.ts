import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../harness/api.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { waitFor } from '../harness/process.ts';
import { demoEnergy } from '@iot/infra/simulator.ts';

/** `npm start` shows live data: the demo fleet's simulator publishes over the embedded broker as real devices. */
let sut: TestPlatform;
let started: number;
beforeAll(async () => {
  started = Date.now();
  sut = await startTestPlatform({ DEMO_DATA: 'true' });
}, 120_000);
afterAll(async () => sut?.stop());

describe('demo fleet', () => {
  it('reports values for sensors and, through their gateways, for meters; the devices show online', async () => {
    const token = await sut.login('demo', 'demo123456');
    const list = ok(await sut.call('device.list', { token, query: { pageSize: 100 } })).rows;
    const idOf = (sn: string) => list.find((d) => d.sn === sn)!.id;
    const latest = async (sn: string) => ok(await sut.call('telemetry.latest', { token, query: { id: idOf(sn) } }));
    // Each device has a connection of its own and reports on the simulator's tick once connected: the gateways connect
    // after the sensors, and on a busy machine a tick or two later (measured: 3.5-7 s under load 20), so each is waited for.
    const firstValues = (sn: string, atLeast = 1) =>
      waitFor(
        `the first values of ${sn}`,
        async () => {
          const values = await latest(sn);
          return values.length >= atLeast && values;
        },
        20_000,
        250,
      );
    const sensor = await firstValues('DEMO-TH-001');
    expect(sensor.map((v) => v.variable).sort()).toEqual(['battery', 'humidity', 'temperature']);
    expect(sensor.find((v) => v.variable === 'temperature')!.display).toMatch(/°C$/);
    // The meter's energy history is seeded at start: its live values are the ones beside it.
    const meter = await firstValues('DEMO-PM-11', 2);
    expect(meter.map((v) => v.variable).sort()).toEqual(['current', 'energy', 'power', 'voltage']);
    // The meters go online by their gateway's reports: all 20 once both gateways have reported.
    await waitFor(
      'the whole fleet online',
      async () => {
        await sut.platform.runner.catchUp();
        return ok(await sut.call('device.count', { token })).online === 20;
      },
      20_000,
      250,
    );
  }, 60_000);
  it("shows a month of the power station's energy, priced by its time-of-use schedule", async () => {
    const token = await sut.login('demo', 'demo123456');
    const today = Math.floor((Date.now() + 8 * 3_600_000) / 86_400_000) * 86_400_000 - 8 * 3_600_000;
    const query = { from: new Date(today - 30 * 86_400_000).toISOString(), to: new Date(today).toISOString(), timeZone: 'Asia/Shanghai' };
    const stats = ok(await sut.call('power.statistics', { token, query }));
    const plant = stats.stations.find((s) => s.stationName === '浦东配电站')!;
    expect(plant).toMatchObject({ schedule: 'station', currency: 'CNY', meters: 6 });
    // Each meter draws 8 kW times its share on average (the daily swing sums to nothing over a day): 192 kWh a day times
    // the shares of the six meters (0.6 to 1.2 by their SN), to a reading's rounding.
    const shares = [11, 12, 13, 21, 22, 23].map((n) => 0.6 + ([...`DEMO-PM-${n}`].reduce((a, c) => a + c.charCodeAt(0), 0) % 7) / 10);
    const perDay = 192 * shares.reduce((a, b) => a + b, 0);
    expect(plant.windows).toHaveLength(30);
    for (const day of plant.windows.slice(1)) expect(Math.abs(day.kwh - perDay)).toBeLessThan(0.2);
    for (const kind of ['sharp', 'peak', 'flat', 'valley'] as const) expect(plant.total[kind]).toBeGreaterThan(0);
    expect(plant.total.cost).toBeGreaterThan(plant.total.kwh * 0.31);
  }, 60_000);

  it('counts the last half hour of the meters as used in it: the seeded history reaches the live readings', async () => {
    const token = await sut.login('demo', 'demo123456');
    const quarter = 15 * 60_000;
    const from = Math.floor((started - 30 * 60_000) / quarter) * quarter;
    const query = { from: new Date(from).toISOString(), to: new Date(Date.now() + 3_600_000).toISOString(), timeZone: 'UTC' };
    const plant = ok(await sut.call('power.statistics', { token, query })).stations.find((s) => s.stationName === '浦东配电站')!;
    // Readings every 15 minutes up to the start, then the simulator's: what was used since the reading before `from`
    // up to the newest one. A history that stopped at midnight put the whole day so far into the first live bucket.
    const meters = [11, 12, 13, 21, 22, 23].map((n) => `DEMO-PM-${n}`);
    const used = (since: number, until: number) => meters.reduce((kwh, sn) => kwh + demoEnergy(sn, until) - demoEnergy(sn, since), 0);
    expect(plant.total.kwh).toBeGreaterThanOrEqual(used(from, started) - 0.1);
    expect(plant.total.kwh).toBeLessThanOrEqual(used(from - quarter, Date.now()) + 0.1);
  }, 60_000);

  it('shows a timing scene, a device-property scene and a rule chain beside the root one', async () => {
    const token = await sut.login('demo', 'demo123456');
    const scenes = ok(await sut.call('scene.list', { token, query: { pageSize: 100 } })).rows;
    expect(scenes.map((s) => [s.name, s.status]).sort()).toEqual(
      [
        ['每日巡检提醒', 'enabled'],
        ['机房高温联动', 'stopped'],
      ].sort(),
    );
    const chains = ok(await sut.call('ruleChain.list', { token, query: { pageSize: 100 } })).rows;
    expect(chains.map((c) => [c.name, c.root])).toContainEqual(['温度处理', false]);
  }, 60_000);
});
