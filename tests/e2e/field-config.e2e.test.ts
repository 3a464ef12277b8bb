import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { routes } from '@iot/contracts/routes.ts';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';

/**
 * Field configuration as an operator uses it (issue 20): a custom field defined, a site picked on the group tree,
 * its parameters saved beside its devices, in en and zh; screenshots kept when E2E_SHOTS_DIR is set.
 */
const wait = { timeout: 20_000 };
const shots = process.env.E2E_SHOTS_DIR;

describe('field configuration in a real browser', () => {
  let sut: BrowserPlatform;

  beforeAll(async () => {
    sut = await startBrowserPlatform({ id: 'yankee', name: 'yankeeCo', adminUsername: 'yankeeAdmin', adminPassword: 'Yankee#pw1' });
    await sut.platform.runner.catchUp();
  }, 300_000);
  afterAll(async () => sut?.stop());

  const operator = (lang: 'en' | 'zh') => sut.loggedIn({ lang, account: 'yankeeAdmin', password: 'Yankee#pw1' });
  /** A write through the API with the page's login, for the groups and devices the screen shows. */
  const post = async (page: Page, name: 'group.create' | 'product.create' | 'device.create', data: object): Promise<string> => {
    const answer = await page.request.post(`${sut.base}${routes[name].path}`, { data });
    const json = (await answer.json()) as { code: number; data: { id: string } };
    expect(json.code).toBe(200);
    return json.data.id;
  };

  it('defines a field, picks a site, lists its devices and saves its parameters', async () => {
    const page = await operator('en');
    const region = await post(page, 'group.create', { name: 'East region', type: 'institution' });
    const site = await post(page, 'group.create', { name: 'Solar farm 1', type: 'powerStation', parentId: region });
    const productId = await post(page, 'product.create', { name: 'Inverter', code: 'YKI', type: 'direct' });
    await post(page, 'device.create', { sn: 'YKI-1', name: 'Inverter 1', productId, groupId: site });
    await page.goto(`${sut.base}/operation/fieldConfig`);
    await expect.poll(() => page.getByText('Pick a site, power station or project on the left').count(), wait).toBe(1);

    await page.getByRole('textbox', { name: 'Key' }).fill('inverters');
    await page.getByRole('textbox', { name: 'Chinese label' }).fill('逆变器数量');
    await page.getByRole('textbox', { name: 'English label' }).fill('Inverters');
    await page.getByRole('button', { name: 'Save field' }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'inverters', exact: true }).count(), wait).toBe(1);

    await page.getByRole('button', { name: 'Solar farm 1' }).click();
    await expect.poll(() => page.getByTestId('field-device').count(), wait).toBe(1);
    await page.getByRole('textbox', { name: /Rated capacity/ }).fill('5000');
    await page.getByRole('textbox', { name: 'Address' }).fill('8 Sunny Road, Hefei');
    await page.getByRole('button', { name: 'Add contact' }).click();
    await page.getByRole('textbox', { name: 'Name' }).fill('Wang Fang');
    await page.getByRole('textbox', { name: 'Inverters' }).fill('12');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.getByText('Site parameters saved').count(), wait).toBeGreaterThan(0);
    await expect.poll(() => page.getByText('Configured').count(), wait).toBe(1);
    if (shots) await page.screenshot({ path: path.join(shots, 'field-config-en.png'), fullPage: true });
    await page.context().close();
  });

  it('speaks Chinese and shows the saved parameters', async () => {
    const page = await operator('zh');
    await page.goto(`${sut.base}/operation/fieldConfig`);
    await page.getByRole('button', { name: 'Solar farm 1' }).click();
    await expect.poll(() => page.getByRole('textbox', { name: '地址' }).inputValue(), wait).toBe('8 Sunny Road, Hefei');
    expect(await page.getByRole('textbox', { name: /逆变器数量/ }).inputValue()).toBe('12');
    expect(await page.getByText('站点设备').count()).toBe(1);
    if (shots) await page.screenshot({ path: path.join(shots, 'field-config-zh.png'), fullPage: true });
    await page.context().close();
  });
});
