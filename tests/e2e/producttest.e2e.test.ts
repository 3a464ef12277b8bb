import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';
import { httpClientAs, type HttpClient } from '../harness/http-client.ts';
import { waitFor } from '../harness/process.ts';

/**
 * A production test as a tester runs it (issue 21): the device's values read and checked, the report generated, the
 * device submitted after a confirm, each with the spec's notice; the quality tester takes it; every product-test
 * screen is a real screen in zh and en (never the "later release" page).
 */
describe('product test in a real browser', () => {
  let sut: BrowserPlatform;
  let base: string;
  let api: HttpClient & { token: string };
  const shots = process.env.E2E_SHOTS ?? '/tmp/pt-shots';

  beforeAll(async () => {
    sut = await startBrowserPlatform({ id: 'fab', name: 'fabCo', adminUsername: 'fabAdmin', adminPassword: 'Fab#pw123' });
    base = sut.base;
    mkdirSync(shots, { recursive: true });
    api = await httpClientAs(base, 'fabAdmin', 'Fab#pw123');
    const { id: productId } = await api.call('product.create', { body: { name: 'Meter', code: 'MTR', type: 'direct' } });
    await api.call('product.defineFunction', {
      body: {
        productId,
        function: {
          type: 'property',
          name: 'Temperature',
          identifier: 'temperature',
          dataType: { type: 'float', min: 0, max: 50, unit: 'C' },
        },
      },
    });
    await api.call('product.publish', { body: { id: productId } });
    const device = await api.call('device.create', { body: { sn: 'PT-100', name: 'meter one', productId } });
    await api.call('telemetry.report', {
      body: { sn: 'PT-100', secret: device.secret!, data: { ts: Date.now(), values: { temperature: 21.5 } } },
    });
    await waitFor('the latest value', async () => (await api.call('telemetry.latest', { query: { id: device.id } })).length === 1);
    await api.call('ptConfig.create', { body: { alias: 'Line 1', productId, qcPermission: true } });
    await sut.platform.runner.catchUp();
  }, 180_000);
  afterAll(async () => sut?.stop());

  const tester = (lang: 'en' | 'zh') => sut.loggedIn({ lang, account: 'fabAdmin', password: 'Fab#pw123' });
  const row = (page: Page) => page.getByRole('row').filter({ hasText: 'PT-100' });
  const notices = (page: Page) => page.locator('.notice').allTextContents();

  it('binds the tester to the configuration with the spec’s notice', async () => {
    const page = await tester('en');
    await page.goto(`${base}/producttest/binding`);
    const me = page.getByRole('row').filter({ hasText: 'fabAdmin' });
    await expect.poll(() => me.count(), { timeout: 20_000 }).toBe(1);
    await me.getByRole('checkbox').click();
    await page.getByRole('button', { name: 'Bind', exact: true }).click();
    await expect.poll(() => notices(page)).toContainEqual(expect.stringContaining('User bound'));
    await expect.poll(() => me.textContent()).toContain('Yes');
    await page.context().close();
  });

  it('tests a device, generates its report and submits it, with the spec’s notices', async () => {
    const page = await tester('en');
    await page.goto(`${base}/producttest/production`);
    await expect.poll(() => row(page).first().textContent()).toContain('Not tested');
    await row(page).first().getByRole('button', { name: 'Test', exact: true }).click();
    await expect.poll(() => notices(page)).toContainEqual(expect.stringContaining('Test issued'));
    const result = page.getByRole('dialog');
    await expect.poll(() => result.textContent()).toContain('Passed');
    expect(await result.textContent()).toContain('0 ~ 50');
    await page.screenshot({ path: `${shots}/production-test-result-en.png` });
    await result.getByRole('button', { name: 'Close' }).click();
    await row(page).first().getByRole('button', { name: 'Generate report' }).click();
    await expect.poll(() => notices(page)).toContainEqual(expect.stringContaining('Report generated'));
    await expect.poll(() => row(page).first().textContent()).toContain('Report generated');
    await row(page).first().getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('button', { name: 'OK' }).click();
    await expect.poll(() => notices(page)).toContainEqual(expect.stringContaining('PT submitted'));
    await expect.poll(() => row(page).first().textContent()).toContain('Submitted to QC');
    // The operation records below the list name each step and who took it.
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Generate report' }).filter({ hasText: 'fabAdmin' }).count()).toBe(1);
    await page.screenshot({ path: `${shots}/production-en.png`, fullPage: true });
    await page.goto(`${base}/producttest/ptReport`);
    await expect.poll(() => row(page).first().textContent()).toContain('Passed');
    await page.screenshot({ path: `${shots}/pt-report-en.png` });
    await page.context().close();
  });

  it('the quality tester runs the QC test on the submitted device, in Chinese', async () => {
    const page = await tester('zh');
    await page.goto(`${base}/producttest/quality`);
    await expect.poll(() => row(page).first().textContent()).toContain('已提交质检');
    await row(page).first().getByRole('button', { name: '质检', exact: true }).click();
    await expect.poll(() => notices(page)).toContainEqual(expect.stringContaining('质检已完成测试'));
    await page.getByRole('dialog').getByRole('button', { name: '关闭' }).click();
    await expect.poll(() => row(page).first().textContent()).toContain('已质检');
    await page.screenshot({ path: `${shots}/quality-zh.png` });
    await page.context().close();
  });

  it('shows every product-test screen as a real screen in zh and en', async () => {
    const paths = ['config', 'production', 'ptReport', 'quality', 'qcReport', 'batch', 'iccid', 'binding'];
    for (const lang of ['zh', 'en'] as const) {
      const page = await tester(lang);
      for (const path of paths) {
        await page.goto(`${base}/producttest/${path}`);
        // A real screen has a table or a configuration picker; the "later release" page has neither.
        await expect
          .poll(() => page.locator('table, [name=configId], [data-testid=pt-empty]').count(), {
            message: `${lang} ${path}`,
            timeout: 20_000,
          })
          .toBeGreaterThan(0);
        expect(await page.getByText(lang === 'en' ? 'later release' : '后续版本').count(), `${lang} ${path}`).toBe(0);
        // Every list answered: no refusal shown in place of its rows.
        expect(
          await page.getByText(lang === 'en' ? 'Please complete the required fields' : '请完善必填项').count(),
          `${lang} ${path}`,
        ).toBe(0);
        await page.screenshot({ path: `${shots}/${path}-${lang}.png` });
      }
      await page.context().close();
    }
  }, 300_000);
});
