import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';
import { httpClientAs } from '../harness/http-client.ts';

/**
 * The command dialog as an operator uses it (issue 11 "the command dialog with its reply"): a thing-model service
 * picked in the device detail, its typed input filled, sent synchronously to a device simulated by an MQTT.js
 * client that answers on its downlink; the dialog shows the reply and the recent commands list who asked.
 */
describe('command dialog in a real browser', () => {
  let sut: BrowserPlatform;
  let device: MqttClient;
  const received: Array<{ identifier: string; params: Record<string, unknown> }> = [];

  beforeAll(async () => {
    sut = await startBrowserPlatform({ id: 'yankee', name: 'yankeeCo', adminUsername: 'yankeeAdmin', adminPassword: 'Yankee#pw1' });
    const api = await httpClientAs(sut.base, 'yankeeAdmin', 'Yankee#pw1');
    const { id: productId } = await api.call('product.create', { body: { name: 'Pump', code: 'PUMP', type: 'direct' } });
    await api.call('product.defineFunction', {
      body: {
        productId,
        function: {
          type: 'service',
          name: 'Set speed',
          identifier: 'setSpeed',
          invoke: 'sync',
          timeoutMs: 5000,
          inputs: [{ identifier: 'rpm', name: 'Speed', dataType: { type: 'int', min: 0, max: 3000 } }],
        },
      },
    });
    await api.call('product.defineFunction', {
      body: {
        productId,
        function: {
          type: 'property',
          name: 'Setpoint',
          identifier: 'setpoint',
          access: 'rw',
          dataType: { type: 'float', min: 0, max: 100 },
        },
      },
    });
    await api.call('product.publish', { body: { id: productId } });
    const { secret } = await api.call('device.create', { body: { sn: 'PUMP-1', name: 'pump one', productId } });
    const url = (sut.platform.mqtt as unknown as { url: string }).url;
    device = mqtt.connect(url, { username: 'PUMP-1', password: secret, clientId: 'pump-1', reconnectPeriod: 0 });
    await new Promise((resolve, reject) => device.once('connect', resolve).once('error', reject));
    await device.subscribeAsync(['devices/PUMP-1/command/+', 'devices/PUMP-1/passthrough/down'], { qos: 1 });
    // The simulated device: answers every command on its reply topic with what it applied, and a pass-through frame
    // with a Modbus-style answer of its own.
    device.on('message', (topic, payload) => {
      if (topic.endsWith('/passthrough/down'))
        return void device.publishAsync('devices/PUMP-1/passthrough/up', Buffer.from([0x01, 0x03, 0x02, 0x05, 0xaa]), { qos: 1 });
      const message = JSON.parse(String(payload)) as { messageId: string; identifier: string; params: Record<string, unknown> };
      received.push(message);
      void device.publishAsync(`devices/PUMP-1/reply/${message.messageId}`, JSON.stringify({ applied: message.params.rpm }), { qos: 1 });
    });
  }, 120_000);
  afterAll(async () => {
    device?.end(true);
    await sut?.stop();
  });

  it('sends a service with its typed input, shows the device reply, and lists the command with who asked', async () => {
    const page = await sut.loggedIn({ lang: 'en', account: 'yankeeAdmin', password: 'Yankee#pw1' });
    await page.goto(`${sut.base}/device/device`);
    await page.getByRole('button', { name: 'pump one' }).first().click();
    const detail = page.getByRole('dialog').last();
    await detail.getByRole('tab', { name: 'Commands' }).click();
    await detail.getByRole('button', { name: 'Send command' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send a command' });
    await dialog.getByRole('combobox', { name: 'Service or property' }).click();
    await page.getByRole('option', { name: /Set speed \(setSpeed\)/ }).click();
    await dialog
      .getByRole('textbox', { name: 'rpm' })
      .or(dialog.getByRole('spinbutton', { name: 'rpm' }))
      .fill('1450');
    await dialog.getByRole('button', { name: 'Send', exact: true }).click();
    await expect.poll(() => dialog.getByTestId('command-result').textContent(), { timeout: 10_000 }).toContain('Device replied');
    expect(await dialog.getByTestId('command-result').textContent()).toContain('{"applied":1450}');
    expect(received).toEqual([expect.objectContaining({ identifier: 'setSpeed', params: { rpm: 1450 } })]);
    await dialog.getByRole('button', { name: 'Close' }).click();
    const recent = detail.getByLabel('Recent commands');
    await expect.poll(() => recent.textContent(), { timeout: 10_000 }).toContain('Replied');
    const text = await recent.textContent();
    expect(text).toContain('yankeeAdmin');
    expect(text).toContain('setSpeed');
    await page.context().close();
  }, 120_000);

  it('sets a desired value and shows it pending until the device reports it, then in sync', async () => {
    const page = await sut.loggedIn({ lang: 'en', account: 'yankeeAdmin', password: 'Yankee#pw1' });
    await page.goto(`${sut.base}/device/device`);
    await page.getByRole('button', { name: 'pump one' }).first().click();
    const detail = page.getByRole('dialog').last();
    await detail.getByRole('tab', { name: 'Commands' }).click();
    await detail.getByRole('button', { name: 'Send command' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send a command' });
    await dialog.getByRole('combobox', { name: 'Service or property' }).click();
    await page.getByRole('option', { name: /Setpoint \(setpoint\)/ }).click();
    await dialog.getByRole('spinbutton', { name: 'value' }).fill('37.5');
    await dialog.getByRole('button', { name: 'Set as desired' }).click();
    await expect.poll(() => dialog.getByTestId('command-result').textContent(), { timeout: 10_000 }).toContain('Sent');
    await expect.poll(() => received.some((m) => m.identifier === 'setpoint')).toBe(true);
    await dialog.getByRole('button', { name: 'Close' }).click();
    const desired = detail.getByLabel('Desired state');
    await expect.poll(() => desired.textContent(), { timeout: 10_000 }).toContain('Not applied yet');
    await device.publishAsync('devices/PUMP-1/telemetry', JSON.stringify({ setpoint: 37.5 }), { qos: 1 });
    await expect.poll(() => desired.textContent(), { timeout: 15_000 }).toContain('In sync');
    expect(await desired.textContent()).toContain('yankeeAdmin');
    await page.context().close();
  }, 60_000);

  it('relays hex bytes to the device on the pass-through tab and shows its answer', async () => {
    const page = await sut.loggedIn({ lang: 'en', account: 'yankeeAdmin', password: 'Yankee#pw1' });
    await page.goto(`${sut.base}/device/device`);
    await page.getByRole('button', { name: 'pump one' }).first().click();
    const detail = page.getByRole('dialog').last();
    await detail.getByRole('tab', { name: 'Pass-through' }).click();
    await detail.getByRole('textbox', { name: 'Data (hex)' }).fill('01 03 00 00 00 01');
    await detail.getByRole('button', { name: 'Send', exact: true }).click();
    await expect.poll(() => detail.getByLabel('Pass-through frames').textContent(), { timeout: 10_000 }).toContain('01 03 02 05 aa');
    expect(await detail.getByTestId('passthrough-state').textContent()).toContain('Pass-through in progress');
    await page.context().close();
  }, 60_000);
});
