import path from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';
import { httpClientAs } from '../harness/http-client.ts';

/**
 * System → MQTT in a real browser (issue 19): a tenant administrator sees its connected device with its
 * subscription and messages, and disconnects it after a confirm; in en and zh (screenshots kept for a look).
 */
const wait = { timeout: 20_000 };
const shots = process.env.E2E_SHOTS_DIR;

describe('the MQTT screen in a real browser', () => {
  let sut: BrowserPlatform;
  let device: MqttClient;

  beforeAll(async () => {
    sut = await startBrowserPlatform({ id: 'mike', name: 'mikeCo', adminUsername: 'mikeAdmin', adminPassword: 'Mike#pw1' });
    const api = await httpClientAs(sut.base, 'mikeAdmin', 'Mike#pw1');
    const { id: productId } = await api.call('product.create', { body: { name: 'Meter', code: 'MQMETER', type: 'direct' } });
    const temperature = { type: 'property', name: 'temperature', identifier: 'temperature', dataType: { type: 'float' } } as const;
    await api.call('product.defineFunction', { body: { productId, function: temperature } });
    await api.call('product.publish', { body: { id: productId } });
    const { secret } = await api.call('device.create', { body: { sn: 'MQ-E2E', name: 'Boiler meter', productId } });
    const url = `mqtt://127.0.0.1:${sut.platform.context.config.MQTT_PORT}`;
    device = mqtt.connect(url, { username: 'MQ-E2E', password: secret!, clientId: 'boiler-1', reconnectPeriod: 0 });
    await new Promise((resolve, reject) => device.once('connect', resolve).once('error', reject));
    await device.subscribeAsync('devices/MQ-E2E/command/+', { qos: 1 });
    await device.publishAsync('devices/MQ-E2E/telemetry', JSON.stringify({ temperature: 21 }), { qos: 1 });
  }, 300_000);
  afterAll(async () => {
    device?.end(true);
    await sut?.stop();
  });

  it('speaks Chinese', async () => {
    const page = await sut.loggedIn({ lang: 'zh', account: 'mikeAdmin', password: 'Mike#pw1' });
    await page.goto(`${sut.base}/system/mqtt`);
    await expect.poll(() => page.getByText('内置 Aedes').count(), wait).toBe(1);
    const row = page.getByRole('row').filter({ hasText: 'boiler-1' });
    await expect.poll(() => row.textContent(), wait).toContain('devices/MQ-E2E/command/+ (QoS 1)');
    expect(await row.getByRole('button', { name: '断开连接' }).count()).toBe(1);
    if (shots) await page.screenshot({ path: path.join(shots, 'system-mqtt-zh.png') });
    await page.context().close();
  });

  it('lists the connected device and disconnects it after a confirm', async () => {
    const page = await sut.loggedIn({ lang: 'en', account: 'mikeAdmin', password: 'Mike#pw1' });
    await page.goto(`${sut.base}/system/mqtt`);
    const row = page.getByRole('row').filter({ hasText: 'boiler-1' });
    await expect.poll(() => row.textContent(), wait).toContain('Boiler meter (MQ-E2E)');
    expect(await page.getByTestId('mqtt-tenant').textContent()).toBe('mike: 1');
    if (shots) await page.screenshot({ path: path.join(shots, 'system-mqtt-en.png') });
    let closed = false;
    device.on('close', () => (closed = true));
    await row.getByRole('button', { name: 'Disconnect' }).click();
    const ask = page.getByRole('alertdialog');
    await expect.poll(() => ask.textContent(), wait).toContain('The device may connect again.');
    await ask.getByRole('button', { name: 'Disconnect' }).click();
    await expect.poll(() => closed, wait).toBe(true);
    await expect.poll(() => page.getByText('No client connected').count(), wait).toBe(1);
    await page.context().close();
  });
});
