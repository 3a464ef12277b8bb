import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';

/**
 * The power area's energy statistics as an operator uses them (issue 20), on the demo tenant of `npm start`: a month
 * of its power station's use by price period, its price schedule edited (and a bad one refused), the cost following,
 * in en and zh; screenshots kept when E2E_SHOTS_DIR is set.
 */
const wait = { timeout: 30_000 };
const shots = process.env.E2E_SHOTS_DIR;

describe('energy statistics in a real browser', () => {
  let sut: BrowserPlatform;

  beforeAll(async () => {
    sut = await startBrowserPlatform(
      { id: 'zulu', name: 'zuluCo', adminUsername: 'zuluAdmin', adminPassword: 'Zulu#pw12' },
      { DEMO_FLEET: '0' },
      { demo: true },
    );
    await sut.platform.runner.catchUp();
  }, 300_000);
  afterAll(async () => sut?.stop());

  const demo = async (lang: 'en' | 'zh') => {
    const page = await sut.loggedIn({
      lang,
      account: 'demo',
      password: 'demo123456',
      then: '/analysis/business',
      viewport: { width: 1400, height: 900 },
    });
    await page.goto(`${sut.base}/analysis/business?tab=energy`);
    return page;
  };
  const totalCost = async (page: Page) => Number((await page.getByTestId('energy-cost').textContent())!.replace(/[^0-9.]/g, ''));

  it('shows the station’s use by period as a chart and a table, edits its schedule and refuses overlapping periods', async () => {
    const page = await demo('en');
    await expect.poll(() => page.getByTestId('energy-summary').count(), wait).toBe(1);
    expect(Number(await page.getByRole('img', { name: 'Energy by price period' }).getAttribute('data-count'))).toBeGreaterThanOrEqual(29);
    const table = page.getByTestId('energy-table');
    expect(await table.getByText('浦东配电站').count()).toBe(1);
    expect(await table.getByText('Own schedule').count()).toBe(1);
    expect(await page.getByTestId('energy-cost').textContent()).toMatch(/CNY$/);
    const before = await totalCost(page);
    expect(before).toBeGreaterThan(0);
    if (shots) await page.screenshot({ path: path.join(shots, 'energy-en.png'), fullPage: true });

    await page.getByRole('tab', { name: 'Price schedules' }).click();
    const plant = page.getByTestId('price-schedule').filter({ hasText: '浦东配电站' });
    await plant.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('spinbutton', { name: 'Valley' }).fill('0.1');
    await dialog.getByRole('spinbutton', { name: 'Sharp' }).fill('0.9');
    // A period from 22:00 to midnight overlaps the valley's 22:00 to 06:00: the server refuses it, in the reader's language.
    await dialog.getByRole('button', { name: 'Add a period' }).click();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByText('The price periods overlap').count(), wait).toBeGreaterThan(0);
    await dialog.getByRole('button', { name: 'Remove the period' }).last().click();
    if (shots) await page.screenshot({ path: path.join(shots, 'price-dialog-en.png') });
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached', ...wait });
    await expect.poll(() => plant.getByRole('cell', { name: '0.1', exact: true }).count(), wait).toBe(1);
    if (shots) await page.screenshot({ path: path.join(shots, 'prices-en.png'), fullPage: true });

    await page.getByRole('tab', { name: 'Energy' }).click();
    await expect.poll(() => totalCost(page), wait).toBeLessThan(before);
    await page.context().close();
  });

  it('speaks Chinese on the energy and price tabs', async () => {
    const page = await demo('zh');
    await expect.poll(() => page.getByTestId('energy-summary').count(), wait).toBe(1);
    for (const text of ['总用电量', '总电费', '分时用电量', '各电站用电', '本站方案'])
      expect(await page.getByText(text).count(), text).toBeGreaterThan(0);
    expect(await page.getByRole('tab', { name: '能耗统计' }).getAttribute('aria-selected')).toBe('true');
    if (shots) await page.screenshot({ path: path.join(shots, 'energy-zh.png'), fullPage: true });
    await page.getByRole('tab', { name: '电价方案' }).click();
    await expect.poll(() => page.getByText('默认方案（全部电站）').count(), wait).toBe(1);
    await page.getByRole('button', { name: '新增' }).click();
    await expect.poll(() => page.getByRole('dialog').getByText('各时段须无重叠地覆盖全天 24 小时', { exact: false }).count(), wait).toBe(1);
    if (shots) await page.screenshot({ path: path.join(shots, 'price-add-zh.png') });
    await page.context().close();
  });
});
