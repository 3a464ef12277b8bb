import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/** `npm start` shows live data: the demo fleet's simulator publishes over the embedded broker as real devices. */
let sut: TestPlatform;
beforeAll(async () => {
  sut = await startTestPlatform({ DEMO_DATA: 'true' });
}, 120_000);
afterAll(async () => sut?.stop());

describe('demo fleet', () => {
  it('reports values for sensors and, through their gateways, for meters; the devices show online', async () => {
    const token = await sut.login('demo', 'demo123456');
    const list = (await sut.call('GET', '/api/iot/device', { token, query: { pageSize: '100' } })).json!.data.rows as {
      id: string;
      sn: string;
    }[];
    const idOf = (sn: string) => list.find((d) => d.sn === sn)!.id;
    const latest = async (sn: string) =>
      (await sut.call('GET', '/api/iot/device/latest', { token, query: { id: idOf(sn) } })).json!.data as {
        variable: string;
        display: string;
      }[];
    let sensor: { variable: string; display: string }[] = [];
    for (let i = 0; i < 80 && sensor.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 250));
      sensor = await latest('DEMO-TH-001');
    }
    expect(sensor.map((v) => v.variable).sort()).toEqual(['battery', 'humidity', 'temperature']);
    expect(sensor.find((v) => v.variable === 'temperature')!.display).toMatch(/°C$/);
    expect((await latest('DEMO-PM-11')).map((v) => v.variable).sort()).toEqual(['current', 'energy', 'power', 'voltage']);
    await sut.platform.runner.catchUp();
    const online = (await sut.call('GET', '/api/iot/device/count', { token })).json!.data;
    expect(online.online).toBe(20);
  }, 60_000);
});
