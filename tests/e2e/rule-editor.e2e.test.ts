import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';
import { httpClientAs } from '../harness/http-client.ts';

/**
 * The rule chain editor as an operator uses it (issue 19): a node dragged from the palette onto the root chain,
 * linked by a labelled link, a save refused for a missing required link and then taken as a new version, a node's
 * debug switched on and its last message read after a device publishes; in en and zh.
 */
const wait = { timeout: 20_000 };
const SHOTS = process.env.E2E_SHOTS;

describe('rule chain editor in a real browser', () => {
  let sut: BrowserPlatform;
  let device: MqttClient;

  beforeAll(async () => {
    sut = await startBrowserPlatform({ id: 'xray', name: 'xrayCo', adminUsername: 'xrayAdmin', adminPassword: 'Xray#pw12' });
    const api = await httpClientAs(sut.base, 'xrayAdmin', 'Xray#pw12');
    const { id: productId } = await api.call('product.create', { body: { name: 'Boiler', code: 'BOIL', type: 'direct' } });
    await api.call('product.defineFunction', {
      body: {
        productId,
        function: { type: 'property', name: 'Temp', identifier: 'temperature', dataType: { type: 'float', min: -40, max: 200 } },
      },
    });
    await api.call('product.publish', { body: { id: productId } });
    const { secret } = await api.call('device.create', { body: { sn: 'BOIL-1', name: 'boiler one', productId } });
    await sut.platform.runner.catchUp();
    const url = (sut.platform.mqtt as unknown as { url: string }).url;
    device = mqtt.connect(url, { username: 'BOIL-1', password: secret, clientId: 'boil-1', reconnectPeriod: 0 });
    await new Promise((resolve, reject) => device.once('connect', resolve).once('error', reject));
  }, 300_000);
  afterAll(async () => {
    device?.end(true);
    await sut?.stop();
  });

  const operator = (lang: 'en' | 'zh') => sut.loggedIn({ lang, account: 'xrayAdmin', password: 'Xray#pw12' });
  /** An HTML5 drag from the palette onto the canvas, the events as the browser sends them, carrying one DataTransfer. */
  async function drag(page: Page, from: Locator, to: Locator, at: { x: number; y: number }) {
    const box = (await to.boundingBox())!;
    const dataTransfer = await page.evaluateHandle('new DataTransfer()');
    await from.dispatchEvent('dragstart', { dataTransfer });
    await to.dispatchEvent('dragover', { dataTransfer, clientX: box.x + at.x, clientY: box.y + at.y });
    await to.dispatchEvent('drop', { dataTransfer, clientX: box.x + at.x, clientY: box.y + at.y });
  }
  /** Drags a link from one node's output to another's input. */
  async function connect(page: Page, from: Locator, to: Locator) {
    const a = (await from.locator('.react-flow__handle-right').boundingBox())!;
    const b = (await to.locator('.react-flow__handle-left').boundingBox())!;
    await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
    await page.mouse.down();
    await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 5 });
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 5 });
    await page.mouse.up();
  }

  it('builds a chain: drag a node, link it, a fault before saving, then a new version; and reads a node’s debug output', async () => {
    const page = await operator('en');
    await page.goto(`${sut.base}/rule/chainEditor`);
    const store = page.getByTestId('rule-node-warehousing');
    await expect.poll(() => store.count(), wait).toBe(1);

    // A filter dragged from the palette onto the canvas, its expression typed in its generated form.
    await drag(page, page.locator('[data-testid=node-palette] [data-kind=filter]'), page.getByTestId('chain-canvas'), { x: 330, y: 90 });
    const filter = page.getByTestId('rule-node-filter1');
    await expect.poll(() => filter.count(), wait).toBe(1);
    await page.getByLabel('Expression (CEL)').fill('has(msg.temperature) && msg.temperature > 30.0');
    await connect(page, store, filter);
    await page.getByRole('dialog').getByRole('button', { name: 'Success', exact: true }).click();
    await expect.poll(() => page.locator('.react-flow__edge').count(), wait).toBe(1);

    // The filter links nowhere: the save is refused with the reason.
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await expect.poll(() => page.getByTestId('chain-faults').textContent(), wait).toContain('lacks a required link');

    // A notify node (clicked in) on the filter's True link: the chain saves as version 2.
    await page.locator('[data-testid=node-palette] [data-kind=notify]').click();
    const notify = page.getByTestId('rule-node-notify1');
    await expect.poll(() => notify.count(), wait).toBe(1);
    await connect(page, filter, notify);
    await page.getByRole('dialog').getByRole('button', { name: 'True', exact: true }).click();
    await expect.poll(() => page.locator('.react-flow__edge').count(), wait).toBe(2);
    await page.getByRole('button', { name: 'Save as new version' }).click();
    await expect.poll(() => page.getByText('Saved as version 2').count(), wait).toBe(1);
    await sut.platform.runner.catchUp();

    // The filter's debug switched on in its form, for 5 minutes and every message; a reading from the device shows as
    // its last message, in and out, in the debug tab.
    await filter.click();
    const debug = page.getByTestId('debug-switch');
    await debug.getByLabel('Minutes (≤60)').fill('5');
    await debug.getByLabel('Sample rate (0.01-1)').fill('1');
    await debug.getByRole('switch', { name: 'Debug' }).click();
    await expect.poll(() => page.getByText('Node debug switched on').count(), wait).toBe(1);
    await expect.poll(() => debug.getByRole('switch', { name: 'Debug' }).getAttribute('aria-checked'), wait).toBe('true');
    expect(await debug.textContent()).toContain('sample rate 1');
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/rule-node-debug-en.png` });
    await sut.platform.runner.catchUp();
    await page.getByRole('tab', { name: 'Debug' }).click();
    await device.publishAsync('devices/BOIL-1/telemetry', JSON.stringify({ temperature: 35.5 }), { qos: 1 });
    const trace = page.getByTestId('node-trace').first();
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return (await trace.count()) > 0 ? trace.textContent() : '';
      }, wait)
      .toContain('35.5');
    expect(await trace.textContent()).toContain('True');
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/rule-editor-en.png` });
    await page.context().close();
  });

  it('speaks Chinese', async () => {
    const page = await operator('zh');
    await page.goto(`${sut.base}/rule/chainEditor`);
    await expect.poll(() => page.getByTestId('rule-node-warehousing').count(), wait).toBe(1);
    expect(await page.getByRole('button', { name: '保存为新版本' }).count()).toBe(1);
    expect(await page.getByTestId('node-palette').textContent()).toContain('过滤');
    // The debug switch is in the node's form, with its time limit and sample rate.
    await page.getByTestId('rule-node-warehousing').click();
    const debug = page.getByTestId('debug-switch');
    await expect.poll(() => debug.getByRole('switch', { name: '调试' }).count(), wait).toBe(1);
    expect(await debug.textContent()).toContain('采样率');
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/rule-node-debug-zh.png` });
    await page.getByRole('tab', { name: '失败与回放' }).click();
    await expect.poll(() => page.getByTestId('failures-panel').textContent(), wait).toContain('消息回放');
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/rule-editor-zh.png` });

    // An unsaved change: leaving asks first (spec §8); staying keeps the change, undo takes it back.
    await page.locator('[data-testid=node-palette] [data-kind=delay]').click();
    await expect.poll(() => page.getByText('未保存', { exact: true }).count(), wait).toBe(1);
    await page.getByRole('link', { name: '规则链库' }).first().click();
    const ask = page.getByRole('alertdialog').or(page.getByRole('dialog')).last();
    await expect.poll(() => ask.textContent(), wait).toContain('有未保存的修改');
    await ask.getByRole('button', { name: '取消' }).click();
    expect(new URL(page.url()).pathname).toBe('/rule/chainEditor');
    await page.getByRole('button', { name: '撤销' }).click();
    await expect.poll(() => page.getByTestId('rule-node-delay1').count(), wait).toBe(0);
    await page.context().close();
  });
});
