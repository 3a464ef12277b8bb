import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { DeviceRef } from '@iot/ingest/registry.ts';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';
import { httpClientAs } from '../harness/http-client.ts';

/**
 * Device management as a new operator uses it (issue 10 "Done when"): a product with a thing model made and
 * published in the browser, 5,000 devices imported from a file with a progress bar, the list filtered, one device
 * edited, and its timeline and as-of showing who changed what and what it looked like before.
 */
describe('device management in a real browser', () => {
  let sut: BrowserPlatform;
  let base: string;
  let dataDir: string;

  beforeAll(async () => {
    sut = await startBrowserPlatform({ id: 'uniform', name: 'uniformCo', adminUsername: 'uniformAdmin', adminPassword: 'Uniform#1' });
    ({ base, dataDir } = sut);
  }, 120_000);
  afterAll(async () => sut?.stop());

  const operator = () => sut.loggedIn({ lang: 'en', account: 'uniformAdmin', password: 'Uniform#1' });
  const dialog = (page: Page) => page.getByRole('dialog').last();

  it('creates a product with a thing model, publishes it, and exports the model as JSON', async () => {
    const page = await operator();
    await page.goto(`${base}/device/product`);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await dialog(page).locator('input[name=name]').fill('Boiler sensor');
    await dialog(page).locator('input[name=code]').fill('BOILER');
    await dialog(page).getByRole('button', { name: 'Save' }).click();
    await page.getByRole('button', { name: 'Boiler sensor' }).click();
    for (const [name, identifier] of [
      ['Temperature', 'temperature'],
      ['Pressure', 'pressure'],
    ]) {
      await page.getByRole('button', { name: 'Add function' }).click();
      const form = dialog(page);
      await form.locator('input[name=name]').fill(name!);
      await form.locator('input[name=identifier]').fill(identifier!);
      await form.locator('input[name=unit]').fill(identifier === 'temperature' ? '°C' : 'kPa');
      await form.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => page.getByRole('cell', { name: identifier!, exact: true }).count()).toBe(1);
    }
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByRole('tab', { name: 'Published versions' }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'v1', exact: true }).count()).toBe(1);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export JSON' }).first().click(),
    ]);
    const model = JSON.parse(readFileSync((await download.path())!, 'utf8')) as { functions: { identifier: string }[] };
    expect(model.functions.map((f) => f.identifier)).toEqual(['temperature', 'pressure']);
    await page.context().close();
  }, 120_000);

  it('imports 5,000 devices from a file with a progress bar, then lists them paged and filtered', async () => {
    const page = await operator();
    const file = path.join(dataDir, 'devices.csv');
    const rows = Array.from(
      { length: 5000 },
      (_, i) => `BOILER-${String(i).padStart(5, '0')},boiler ${i},BOILER,,${(121 + i / 10000).toFixed(4)},31.2`,
    );
    writeFileSync(file, `sn,name,product,group,lng,lat\n${rows.join('\n')}\n`);
    await page.goto(`${base}/device/device`);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await dialog(page).locator('input[type=file]').setInputFiles(file);
    await dialog(page).getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => page.getByTestId('import-summary').textContent(), { timeout: 60_000 }).toContain('5000 created');
    expect(await page.getByRole('progressbar').getAttribute('data-percent')).toBe('100');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByText(/in total/).textContent(), { timeout: 20_000 }).toContain('5000');
    // Filtered by status: all are offline until they connect.
    await page.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'Online' }).click();
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByText(/in total/).textContent()).toContain('0');
    await page.context().close();
  }, 180_000);

  it('edits a device and shows who changed what, and the device as it was before', async () => {
    const page = await operator();
    await page.goto(`${base}/device/device`);
    await page.getByPlaceholder('Enter the serial number').fill('BOILER-00042');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByText(/in total/).textContent()).toContain('1');
    const before = new Date();
    await page.waitForTimeout(1100);
    await page.getByRole('row').filter({ hasText: 'BOILER-00042' }).getByRole('button', { name: 'Edit' }).click();
    await dialog(page).locator('input[name=name]').fill('boiler forty-two');
    await dialog(page).getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'boiler forty-two' }).count()).toBe(1);
    await page.getByRole('button', { name: 'boiler forty-two' }).click();
    await page.getByRole('tab', { name: 'Change history' }).click();
    const timeline = page.getByRole('tabpanel');
    await expect.poll(() => timeline.getByRole('row').filter({ hasText: 'Device updated' }).textContent()).toContain('uniformAdmin');
    // The name's change, before and after, on one line.
    await expect
      .poll(() => timeline.getByRole('row').filter({ hasText: 'boiler forty-two' }).first().textContent())
      .toMatch(/Device name\s*boiler 42\s*boiler forty-two/);
    const local = new Date(before.getTime() - before.getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
    await page.getByLabel('Instant').fill(local);
    await page.getByRole('button', { name: 'Show', exact: true }).click();
    await expect.poll(() => page.getByTestId('as-of').textContent()).toContain('boiler 42');
    await page.screenshot({ path: path.join(dataDir, 'fleet-timeline.png') });
    await page.context().close();
  }, 120_000);

  it('lists what the intake refused in the dead letters dialog, filtered by SN', async () => {
    const { db } = sut.platform.context;
    const device = (
      await db.query<DeviceRef>(
        `select id as "deviceId", tenant_id as "tenantId", sn, name, product_id as "productId", model_version as "modelVersion",
           node_type as "nodeType", gateway_id as "gatewayId", group_id as "groupId" from rm_devices where tenant_id = 'uniform' and sn = 'BOILER-00007'`,
      )
    ).rows[0]!;
    await sut.platform.ingest!.intake.handleHttp(device, { temperature: 'hot', humidity: 5 });
    await sut.platform.ingest!.flush();
    const page = await operator();
    await page.goto(`${base}/device/device`);
    await page.getByRole('button', { name: 'Dead letters' }).click();
    const letters = page.getByRole('dialog');
    await letters.getByPlaceholder(/SN/).fill('BOILER-00007');
    await letters.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => letters.getByRole('row').filter({ hasText: 'BOILER-00007' }).count()).toBe(1);
    expect(await letters.getByRole('row').filter({ hasText: 'BOILER-00007' }).textContent()).toContain('temperature');
    await page.context().close();
  }, 120_000);

  it('puts a device behind a gateway and gives the gateway an MQTT config, from their screens', async () => {
    const page = await operator();
    const api = await httpClientAs(base, 'uniformAdmin', 'Uniform#1');
    const gwProduct = await api.call('product.create', { body: { name: 'Edge', code: 'EDGE', type: 'gateway' } });
    const subProduct = await api.call('product.create', { body: { name: 'Meter', code: 'METER', type: 'subDevice' } });
    await api.call('device.create', { body: { sn: 'EDGE-1', name: 'edge one', productId: gwProduct.id } });
    await api.call('device.create', { body: { sn: 'METER-1', name: 'meter one', productId: subProduct.id } });
    await page.goto(`${base}/device/gateway`);
    await page.getByRole('row').filter({ hasText: 'EDGE-1' }).getByRole('button', { name: 'Sub-devices' }).click();
    await dialog(page).getByLabel('Serial number').fill('METER-1');
    await dialog(page).getByRole('button', { name: 'Add', exact: true }).click();
    await expect.poll(() => dialog(page).getByRole('cell', { name: 'METER-1', exact: true }).count()).toBe(1);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'EDGE-1' }).textContent()).toContain('1');

    await page.goto(`${base}/device/mqttConfig`);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const form = dialog(page);
    await form.getByRole('combobox').first().click();
    await page.getByRole('option', { name: /edge one/ }).click();
    for (const [name, value] of [
      ['name', 'upstream'],
      ['serviceName', 'cloud'],
      ['ip', '10.1.2.3'],
      ['clientId', 'edge-1'],
      ['password', 'up#secret'],
      ['uplinkTopic', 'up/edge-1'],
      ['downlinkTopic', 'down/edge-1'],
    ])
      await form.locator(`input[name=${name}]`).fill(value!);
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'upstream' }).textContent()).toContain('10.1.2.3:1883');
    expect(await page.content()).not.toContain('up#secret');
    await page.context().close();
  }, 120_000);
});
