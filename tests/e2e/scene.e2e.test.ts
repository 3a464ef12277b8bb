import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { routes } from '@iot/contracts';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';

/**
 * Scene linkage as an operator uses it (issue 19): a scene designed with a timing and an invoke trigger and an
 * action on a device, enabled and run by hand after confirms, its run in the linkage log, and the rule list; in
 * en and zh.
 */
/** The machine may be busy: a screen gets time to answer. */
const wait = { timeout: 20_000 };
const SHOTS = process.env.E2E_SHOTS;

describe('scene linkage in a real browser', () => {
  let sut: BrowserPlatform;
  beforeAll(async () => {
    sut = await startBrowserPlatform({ id: 'whiskey', name: 'whiskeyCo', adminUsername: 'whiskeyAdmin', adminPassword: 'Whiskey#pw1' });
    await sut.platform.runner.catchUp();
  }, 300_000);
  afterAll(async () => sut?.stop());

  const operator = (lang: 'en' | 'zh') => sut.loggedIn({ lang, account: 'whiskeyAdmin', password: 'Whiskey#pw1' });
  const shot = async (page: Page, name: string) => {
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
  };
  /** Picks an option of a select (Radix) by its accessible name inside `scope`. */
  const pick = async (page: Page, scope: string, select: string, option: string) => {
    await page.locator(`${scope} [aria-label="${select}"]`).click();
    await page.getByRole('option', { name: option, exact: true }).click();
  };
  const api = async (
    page: Page,
    name: 'product.create' | 'product.defineFunction' | 'product.publish' | 'device.create',
    body: unknown,
  ) => {
    const answer = await page.request.fetch(`${sut.base}${routes[name].path}`, { method: routes[name].method, data: body });
    const json = (await answer.json()) as { code: number; data: { id: string } };
    expect(json.code, JSON.stringify(json)).toBe(200);
    return json.data;
  };

  it('designs a scene, enables it and runs it by hand after confirms, and finds the run in the linkage log', async () => {
    const page = await operator('en');
    const productId = (await api(page, 'product.create', { name: 'Pump', code: 'PU', type: 'direct' })).id;
    await api(page, 'product.defineFunction', {
      productId,
      function: { type: 'property', name: 'Setpoint', identifier: 'setpoint', access: 'rw', dataType: { type: 'float', min: 0, max: 100 } },
    });
    await api(page, 'product.publish', { id: productId });
    await api(page, 'device.create', { sn: 'PU-1', name: 'pump 1', productId });
    await sut.platform.runner.catchUp();

    await page.goto(`${sut.base}/scene/linkage`);
    await page.getByRole('button', { name: 'Add scene', exact: true }).click();
    await page.waitForURL('**/scene/design');
    await page.locator('input[name=name]').first().fill('Night pumps');
    await page.getByRole('button', { name: 'Add trigger' }).click();
    await pick(page, '[data-part=trigger-1]', 'trigger-1-type', 'Manual / API');
    await pick(page, '[data-part=action-0]', 'deviceId', 'pump 1 (PU-1)');
    await page.locator('[data-part=action-0] input[name=identifier]').fill('setpoint');
    await page.locator('[data-part=action-0] input[name=value]').fill('18');
    // A scene may also notify through a notification configuration.
    await page.locator('[data-part=action-0] [aria-label="action-0-type"]').click();
    expect(await page.getByRole('option', { name: 'Send a notification', exact: true }).count()).toBe(1);
    await page.keyboard.press('Escape');
    await shot(page, 'scene-design-en');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL('**/scene/linkage');
    const row = page.getByRole('row').filter({ hasText: 'Night pumps' });
    await expect.poll(() => row.textContent(), wait).toContain('Stopped');

    await row.getByRole('button', { name: 'Enable', exact: true }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'OK' }).click();
    await expect.poll(() => row.textContent(), wait).toContain('Enabled');
    await row.getByRole('button', { name: 'Run now', exact: true }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'OK' }).click();
    await expect.poll(() => page.getByText('see the linkage log').count(), wait).toBeGreaterThan(0);
    await shot(page, 'scene-linkage-en');

    await row.getByRole('button', { name: 'Log', exact: true }).click();
    await page.waitForURL('**/scene/linkageLog**');
    const run = page.getByRole('row').filter({ hasText: 'Night pumps' });
    // The command is recorded and sent (the device takes it when it connects): the action succeeded.
    await expect.poll(() => run.textContent(), wait).toMatch(/Manual \/ API.*Set device property → pump 1 \(PU-1\): ✓/);
    await shot(page, 'linkage-log-en');

    await page.goto(`${sut.base}/rule/list`);
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Night pumps' }).textContent(), wait).toContain('Scene linkage');
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Root Rule Chain' }).textContent(), wait).toContain('Rule chain');
    await shot(page, 'rule-list-en');
    await page.context().close();
  });

  it('speaks Chinese', async () => {
    const page = await operator('zh');
    await page.goto(`${sut.base}/scene/linkage`);
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Night pumps' }).textContent(), wait).toContain('手动/API 触发');
    await shot(page, 'scene-linkage-zh');
    await page.goto(`${sut.base}/scene/linkageLog`);
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Night pumps' }).count(), wait).toBe(1);
    await shot(page, 'linkage-log-zh');
    await page.goto(`${sut.base}/scene/design`);
    await expect.poll(() => page.getByRole('button', { name: '添加触发器' }).count(), wait).toBe(1);
    await shot(page, 'scene-design-zh');
    await page.goto(`${sut.base}/rule/list`);
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Night pumps' }).textContent(), wait).toContain('场景联动');
    await shot(page, 'rule-list-zh');
    await page.context().close();
  });
});
