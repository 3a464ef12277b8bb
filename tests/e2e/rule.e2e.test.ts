import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';
import { httpClientAs } from '../harness/http-client.ts';

/**
 * The rule chain library as an operator uses it (issue 19): the tenant's root chain, a chain added and renamed
 * (a new version), its versions, a JSON upload refused with the fault's path and then taken, in en and zh.
 */
/** The machine may be busy: a screen gets time to answer. */
const wait = { timeout: 20_000 };

describe('rule chain library in a real browser', () => {
  let sut: BrowserPlatform;
  beforeAll(async () => {
    sut = await startBrowserPlatform({ id: 'yankee', name: 'yankeeCo', adminUsername: 'yankeeAdmin', adminPassword: 'Yankee#pw1' });
    await sut.platform.runner.catchUp();
  }, 300_000);
  afterAll(async () => sut?.stop());

  const operator = (lang: 'en' | 'zh') => sut.loggedIn({ lang, account: 'yankeeAdmin', password: 'Yankee#pw1' });
  const dialog = (page: Page) => page.getByRole('dialog').last();
  const upload = (page: Page, name: string, content: unknown) =>
    page.locator('input[type=file]').setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(content)) });
  const chainFile = (expression: string) => ({
    format: 'iot-rule-chain',
    formatVersion: 1,
    chain: {
      name: 'Uploaded chain',
      firstNodeId: 'hot',
      nodes: [{ id: 'hot', name: 'Hot?', kind: 'filter', config: { expression } }],
      links: [],
    },
  });

  it('shows the root chain, adds a chain, saves a rename as version 2 and lists its versions', async () => {
    const page = await operator('en');
    await page.goto(`${sut.base}/rule/chainLibrary`);
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Root Rule Chain' }).textContent(), wait).toContain('Root chain');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await dialog(page).locator('input[name=name]').fill('Boiler room');
    await dialog(page).getByRole('button', { name: 'Save' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Boiler room' });
    await expect.poll(() => row.count(), wait).toBe(1);
    await row.getByRole('checkbox').click();
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await dialog(page).locator('input[name=name]').fill('Boiler hall');
    await dialog(page).getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByText('Saved as version 2').count(), wait).toBe(1);
    const renamed = page.getByRole('row').filter({ hasText: 'Boiler hall' });
    await expect.poll(() => renamed.count(), wait).toBe(1);
    // The row stays selected across its edit; selected once, whatever the list kept.
    const box = renamed.getByRole('checkbox');
    if ((await box.getAttribute('aria-checked')) !== 'true') await box.click();
    await page.getByRole('button', { name: 'Versions', exact: true }).click();
    const versions = page.getByTestId('chain-versions');
    await expect.poll(() => versions.getByRole('row').count(), wait).toBe(3);
    expect(await versions.getByRole('row').nth(1).textContent()).toMatch(/^2.*Running.*Boiler hall/);
    await page.context().close();
  });

  it('refuses an uploaded chain with a faulty expression, naming its path, and takes a valid one', async () => {
    const page = await operator('en');
    await page.goto(`${sut.base}/rule/chainLibrary`);
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Root Rule Chain' }).count(), wait).toBe(1);
    await upload(page, 'bad.json', chainFile('msg.temp >'));
    await expect.poll(() => page.getByText(/chain\.nodes\.0\.config\.expression: invalid expression/).count(), wait).toBe(1);
    await upload(page, 'good.json', chainFile('msg.temp > 30.0'));
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Uploaded chain' }).count(), wait).toBe(1);
    await page.context().close();
  });

  it('speaks Chinese', async () => {
    const page = await operator('zh');
    await page.goto(`${sut.base}/rule/chainLibrary`);
    // The root chain's built-in name is shown in the user's language, beside its badge.
    const root = page.getByRole('row').filter({ hasText: '根规则链' });
    await expect.poll(() => root.count(), wait).toBe(1);
    expect(await root.textContent()).not.toContain('Root Rule Chain');
    expect(await page.getByRole('button', { name: '上传 JSON' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Upload JSON' }).count()).toBe(0);

    // Its edit form shows that name too; saved unchanged, it stores no new version and keeps the built-in name.
    await root.getByRole('checkbox').click();
    await page.getByRole('button', { name: '编辑', exact: true }).click();
    await expect.poll(() => dialog(page).locator('input[name=name]').inputValue(), wait).toBe('根规则链');
    if (process.env.E2E_SHOTS) await page.screenshot({ path: `${process.env.E2E_SHOTS}/rule-root-edit-zh.png` });
    await dialog(page).getByRole('button', { name: '保存' }).click();
    await expect.poll(() => page.getByText('没有修改，未保存新版本').count(), wait).toBe(1);
    const api = await httpClientAs(sut.base, 'yankeeAdmin', 'Yankee#pw1');
    const versions = await api.call('ruleChain.versions', { query: { id: 'root' } });
    expect(versions.rows.map((v) => [v.version, v.name])).toEqual([[1, 'Root Rule Chain']]);
    await page.context().close();
  });
});
