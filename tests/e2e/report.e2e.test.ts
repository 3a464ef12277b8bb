import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';
import { httpClientAs } from '../harness/http-client.ts';

/**
 * The report screen as an analyst uses it (issue 20): a product's devices and a variable picked, the report shown
 * as a chart and a table, exported as XLSX, saved with a daily schedule to a contact, in en and zh.
 */
const wait = { timeout: 20_000 };

describe('custom reports in a real browser', () => {
  let sut: BrowserPlatform;
  beforeAll(async () => {
    sut = await startBrowserPlatform({ id: 'victor', name: 'victorCo', adminUsername: 'victorAdmin', adminPassword: 'Victor#pw1' });
    const api = await httpClientAs(sut.base, 'victorAdmin', 'Victor#pw1');
    const product = await api.call('product.create', { body: { name: 'Chiller', code: 'CHL', type: 'direct' } });
    const fn = {
      type: 'property',
      name: 'Supply temperature',
      identifier: 'supplyTemp',
      dataType: { type: 'float', min: -40, max: 100, unit: '°C' },
    };
    await api.call('product.defineFunction', { body: { productId: product.id, function: fn } });
    await api.call('product.publish', { body: { id: product.id } });
    const ids: string[] = [];
    for (const sn of ['CHL-1', 'CHL-2'])
      ids.push((await api.call('device.create', { body: { sn, name: `chiller ${sn}`, productId: product.id } })).id);
    await api.call('contact.create', { body: { name: 'Zhao', email: 'zhao@victor.test' } });
    const hour = 3_600_000;
    const start = Math.floor(Date.now() / hour) * hour - 6 * hour;
    await sut.platform.timeseries!.insertTelemetry(
      ids.flatMap((deviceId, d) =>
        Array.from({ length: 12 }, (_, i) => ({
          tenantId: 'victor',
          deviceId,
          variable: 'supplyTemp',
          ts: new Date(start + i * 30 * 60_000),
          value: 6 + d + (i % 4),
          text: null,
        })),
      ),
    );
    await sut.platform.runner.catchUp();
  }, 300_000);
  afterAll(async () => sut?.stop());
  /** Where the screenshots go: E2E_SHOTS to keep them, else the platform's data directory. */
  const shots = () => process.env.E2E_SHOTS ?? sut.dataDir;

  it('shows a report as a chart and a table, exports it, and saves it with a schedule', async () => {
    const page = await sut.loggedIn({ lang: 'en', account: 'victorAdmin', password: 'Victor#pw1' });
    await page.goto(`${sut.base}/analysis/report`);
    await page.getByRole('combobox', { name: 'productId' }).click();
    await page.getByRole('option', { name: 'Chiller (CHL)' }).click();
    await page.getByRole('checkbox', { name: 'chiller CHL-1 (CHL-1)' }).click();
    await page.getByRole('checkbox', { name: 'chiller CHL-2 (CHL-2)' }).click();
    await page.getByRole('checkbox', { name: 'Supply temperature (supplyTemp)' }).click();
    await page.getByRole('button', { name: 'Query', exact: true }).click();
    const table = page.getByTestId('report-table');
    await expect.poll(() => table.getByRole('row').count(), wait).toBeGreaterThan(6);
    expect(await table.getByRole('row').first().textContent()).toContain('Supply temperature (°C)');
    expect(Number(await page.locator('.trend-chart').getAttribute('data-points'))).toBeGreaterThan(6);
    await page.locator('.trend-chart canvas').waitFor(wait);
    await page.screenshot({ path: path.join(shots(), 'report-en.png'), fullPage: true });

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export XLSX' }).click();
    expect((await download).suggestedFilename()).toBe('report.xlsx');

    await page.getByRole('button', { name: 'Save report' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('input[name=name]').fill('Chillers daily');
    await dialog.getByRole('combobox', { name: 'frequency' }).click();
    await page.getByRole('option', { name: 'Daily' }).click();
    await dialog.getByRole('checkbox', { name: 'Zhao (zhao@victor.test)' }).click();
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.getByRole('combobox', { name: 'saved' }).textContent(), wait).toContain('Chillers daily · Daily');
    await page.context().close();
  });

  it('speaks Chinese', async () => {
    const page = await sut.loggedIn({ lang: 'zh', account: 'victorAdmin', password: 'Victor#pw1' });
    await page.goto(`${sut.base}/analysis/report`);
    await expect.poll(() => page.getByRole('button', { name: '查询', exact: true }).count(), wait).toBe(1);
    expect(await page.getByRole('button', { name: '导出 PDF' }).count()).toBe(1);
    expect(await page.getByText('聚合方式').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Query', exact: true }).count()).toBe(0);
    await page.screenshot({ path: path.join(shots(), 'report-zh.png'), fullPage: true });
    await page.context().close();
  });
});
