import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';

/**
 * The HTTP forwarding servers as an operator uses them (issue 19): a server added with several messages per request
 * (batch delivery) and one left at the default of one, each shown in the list, in en and zh.
 */
/** The machine may be busy: a screen gets time to answer. */
const wait = { timeout: 20_000 };

describe('HTTP forwarding servers in a real browser', () => {
  let sut: BrowserPlatform;
  beforeAll(async () => {
    sut = await startBrowserPlatform({ id: 'yankee', name: 'yankeeCo', adminUsername: 'yankeeAdmin', adminPassword: 'Yankee#pw1' });
    await sut.platform.runner.catchUp();
  }, 300_000);
  afterAll(async () => sut?.stop());

  const operator = (lang: 'en' | 'zh') => sut.loggedIn({ lang, account: 'yankeeAdmin', password: 'Yankee#pw1' });
  const dialog = (page: Page) => page.getByRole('dialog').last();

  it('adds a server that takes batches and one that does not, and lists how many messages each request carries', async () => {
    const page = await operator('en');
    await page.goto(`${sut.base}/forward/httpServer`);
    const add = async (name: string, batch: string | null) => {
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await dialog(page).locator('input[name=name]').fill(name);
      await dialog(page).locator('input[name=url]').fill(`https://${name.toLowerCase()}.example.com/iot`);
      expect(await dialog(page).locator('input[name=batchSize]').inputValue()).toBe('1');
      if (batch !== null) await dialog(page).locator('input[name=batchSize]').fill(batch);
      if (process.env.E2E_SHOTS && batch) await page.screenshot({ path: `${process.env.E2E_SHOTS}/forward-http-batch-en.png` });
      await dialog(page).getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => page.getByRole('row').filter({ hasText: name }).count(), wait).toBe(1);
    };
    await add('Erp', '50');
    // Row filters name a server by a word no column header holds.
    await add('Plant', null);
    expect(await page.getByRole('columnheader', { name: 'Messages per request' }).count()).toBe(1);
    expect(await page.getByRole('row').filter({ hasText: 'Erp' }).textContent()).toContain('50');
    // Left as it was, a server sends each message on its own.
    const plant = page.getByRole('row').filter({ hasText: 'Plant' });
    const cells = await plant.getByRole('cell').allTextContents();
    const headers = await page.getByRole('columnheader').allTextContents();
    expect(cells[headers.findIndex((h) => h.includes('Messages per request'))]).toBe('1');
    await page.context().close();
  });

  it('speaks Chinese', async () => {
    const page = await operator('zh');
    await page.goto(`${sut.base}/forward/httpServer`);
    await expect.poll(() => page.getByRole('columnheader', { name: '每次请求消息数' }).count(), wait).toBe(1);
    await page.getByRole('button', { name: '新增', exact: true }).click();
    await expect.poll(() => dialog(page).getByText('每次请求消息数').count(), wait).toBe(1);
    if (process.env.E2E_SHOTS) await page.screenshot({ path: `${process.env.E2E_SHOTS}/forward-http-batch-zh.png` });
    await page.context().close();
  });
});
