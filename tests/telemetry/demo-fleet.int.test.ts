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
    // Each device has a connection of its own and reports on the simulator's tick once connected: the gateways connect
    // after the sensors, and on a busy machine a tick or two later (measured: 3.5-7 s under load 20), so each is waited for.
    const firstValues = (sn: string) =>
      waitFor(
        `the first values of ${sn}`,
        async () => {
          const values = await latest(sn);
          return values.length > 0 && values;
        },
        20_000,
        250,
      );
    const sensor = await firstValues('DEMO-TH-001');
    expect(sensor.map((v) => v.variable).sort()).toEqual(['battery', 'humidity', 'temperature']);
    expect(sensor.find((v) => v.variable === 'temperature')!.display).toMatch(/°C$/);
    const meter = await firstValues('DEMO-PM-11');
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
});
