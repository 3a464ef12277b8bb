import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';
import { httpClientAs } from '../harness/http-client.ts';

/**
 * The data market screen (issue 20): a data set published from a group, an app subscribed to it, the subscription
 * listed with its calls and revoked after a confirm, in en and zh.
 */
const wait = { timeout: 20_000 };

describe('data market in a real browser', () => {
  let sut: BrowserPlatform;
  beforeAll(async () => {
    sut = await startBrowserPlatform({ id: 'zulu', name: 'zuluCo', adminUsername: 'zuluAdmin', adminPassword: 'Zulu#pw1' });
    const api = await httpClientAs(sut.base, 'zuluAdmin', 'Zulu#pw1');
    await api.call('group.create', { body: { name: 'North site', type: 'office' } });
    await api.call('app.create', {
      body: { type: 'server', name: 'Energy portal', scope: ['operation:dataMarket:data'], sharing: 'private' },
    });
    await sut.platform.runner.catchUp();
  }, 300_000);
  afterAll(async () => sut?.stop());
  const shots = () => process.env.E2E_SHOTS ?? sut.dataDir;

  it('publishes a data set, subscribes an app to it and revokes the subscription', async () => {
    const page = await sut.loggedIn({ lang: 'en', account: 'zuluAdmin', password: 'Zulu#pw1' });
    await page.goto(`${sut.base}/operation/dataMarket`);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('input[name=name]').fill('Site power');
    await dialog.getByRole('combobox', { name: 'groupId' }).click();
    await page.getByRole('option', { name: 'North site' }).click();
    await dialog.locator('input[name=variables]').fill('power,energy');
    // Shared with chosen tenants: the form asks which, and refuses none.
    await dialog.getByRole('combobox', { name: 'sharing' }).click();
    await page.getByRole('option', { name: 'Chosen tenants' }).click();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.textContent(), wait).toContain('This field is required');
    expect(await dialog.textContent()).not.toContain('report.fns');
    await dialog.getByRole('combobox', { name: 'sharing' }).click();
    await page.getByRole('option', { name: 'Every tenant' }).click();
    await dialog.getByRole('button', { name: 'Save' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Site power' });
    await expect.poll(() => row.count(), wait).toBe(1);
    expect(await row.textContent()).toContain("A group's device variables");
    expect(await row.textContent()).toContain('Every tenant');

    await row.getByRole('button', { name: 'Subscribe' }).click();
    await page.getByRole('dialog').getByRole('combobox', { name: 'appId' }).click();
    await page.getByRole('option', { name: 'Energy portal' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => row.textContent(), wait).toMatch(/Site power.*1/);
    await page.screenshot({ path: path.join(shots(), 'market-en.png') });

    await page.getByRole('tab', { name: 'Subscriptions and usage' }).click();
    const subscription = page.getByRole('row').filter({ hasText: 'Energy portal' });
    await expect.poll(() => subscription.textContent(), wait).toContain('Site power');
    await subscription.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'OK' }).click();
    await expect.poll(() => subscription.textContent(), wait).toContain('Revoked');
    await page.context().close();
  });

  it('speaks Chinese', async () => {
    const page = await sut.loggedIn({ lang: 'zh', account: 'zuluAdmin', password: 'Zulu#pw1' });
    await page.goto(`${sut.base}/operation/dataMarket`);
    await expect.poll(() => page.getByRole('tab', { name: '订阅与用量' }).count(), wait).toBe(1);
    await expect.poll(() => page.getByRole('tab', { name: '他人共享' }).count(), wait).toBe(1);
    await expect.poll(() => page.getByRole('row').filter({ hasText: '分组设备变量' }).count(), wait).toBe(1);
    await page.screenshot({ path: path.join(shots(), 'market-zh.png') });
    await page.context().close();
  });
});
