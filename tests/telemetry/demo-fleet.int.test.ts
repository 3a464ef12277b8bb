import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../harness/api.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { waitFor } from '../harness/process.ts';

/** `npm start` shows live data: the demo fleet's simulator publishes over the embedded broker as real devices. */
let sut: TestPlatform;
beforeAll(async () => {
  sut = await startTestPlatform({ DEMO_DATA: 'true' });
}, 120_000);
afterAll(async () => sut?.stop());

describe('demo fleet', () => {
  it('reports values for sensors and, through their gateways, for meters; the devices show online', async () => {
    const token = await sut.login('demo', 'demo123456');
    const list = ok(await sut.call('device.list', { token, query: { pageSize: 100 } })).rows;
    const idOf = (sn: string) => list.find((d) => d.sn === sn)!.id;
    const latest = async (sn: string) => ok(await sut.call('telemetry.latest', { token, query: { id: idOf(sn) } }));
    const sensor = await waitFor(
      'the sensor’s first values',
      async () => {
        const values = await latest('DEMO-TH-001');
        return values.length > 0 && values;
      },
      20_000,
      250,
    );
    expect(sensor.map((v) => v.variable).sort()).toEqual(['battery', 'humidity', 'temperature']);
    expect(sensor.find((v) => v.variable === 'temperature')!.display).toMatch(/°C$/);
    expect((await latest('DEMO-PM-11')).map((v) => v.variable).sort()).toEqual(['current', 'energy', 'power', 'voltage']);
    await sut.platform.runner.catchUp();
    const online = ok(await sut.call('device.count', { token }));
    expect(online.online).toBe(20);
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
