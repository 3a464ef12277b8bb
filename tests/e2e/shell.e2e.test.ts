import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Platform } from '@iot/infra/platform.ts';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';

/** Defects of the admin shell found clicking through it (issue 9 "Admin screens"), each held by a test. */
describe('admin shell in a real browser', () => {
  let sut: BrowserPlatform;
  let platform: Platform;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    sut = await startBrowserPlatform({ id: 'victor', name: 'victorCo', adminUsername: 'victorAdmin', adminPassword: 'Victor#1' });
    ({ platform, browser, base } = sut);
  }, 120_000);
  afterAll(async () => sut?.stop());

  const loggedIn = (lang: 'zh' | 'en', then: string, account = 'victorAdmin', password = 'Victor#1'): Promise<Page> =>
    sut.loggedIn({ lang, then, account, password, viewport: { width: 1280, height: 800 } });

  it('opens the sidebar on the area of a deep link, and names the tab in the language', async () => {
    const page = await loggedIn('en', '/system/role');
    const area = page
      .getByRole('treeitem')
      .filter({ has: page.getByText('System management', { exact: true }) })
      .first();
    await expect.poll(() => area.getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => page.title()).toBe('Device Cloud');
    const zh = await loggedIn('zh', '/device/device');
    await expect.poll(() => zh.title()).toBe('设备云平台');
    await page.context().close();
    await zh.context().close();
  });

  it('refuses to delete a built-in role from the toolbar, and keeps it', async () => {
    const page = await loggedIn('en', '/system/role');
    const operatorRow = page.getByRole('row').filter({ hasText: 'Operator' }).first();
    await operatorRow.getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Delete', exact: true }).first().click();
    await expect.poll(() => page.getByText('Built-in roles cannot be deleted').count()).toBeGreaterThan(0);
    await page.reload();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Operator' }).count()).toBeGreaterThan(0);
    await page.context().close();
  });

  it('shows an overview on the home page: counts and the latest operations', async () => {
    const page = await loggedIn('en', '/index');
    const overview = page.getByTestId('overview');
    await expect.poll(() => overview.textContent()).toContain('Roles5');
    await expect.poll(() => overview.textContent()).toContain('Devices0');
    await expect.poll(() => page.getByText('Recent operations').count()).toBe(1);
    await page.context().close();
  });

  it('lets an operator open the user list without being sent to login', async () => {
    const base_ = platform.url!;
    const login = await fetch(`${base_}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ account: 'victorAdmin', password: 'Victor#1', agreement: true }),
    });
    const token = ((await login.json()) as { data: { token: string } }).data.token;
    const roles = (await (await fetch(`${base_}/api/auth/role?pageSize=50`, { headers: { authentication: token } })).json()) as {
      data: { rows: { id: string; builtin: string | null }[] };
    };
    const operatorRole = roles.data.rows.find((r) => r.builtin === 'operator')!.id;
    const created = await fetch(`${base_}/api/auth/user`, {
      method: 'POST',
      headers: { authentication: token, 'content-type': 'application/json' },
      body: JSON.stringify({
        username: 'victorOps',
        password: 'Victor#2',
        email: 'ops@victor.example',
        phone: '13800000077',
        sex: 'male',
        status: 'enabled',
        roleIds: [operatorRole],
      }),
    });
    expect(((await created.json()) as { code: number }).code).toBe(200);
    const page = await loggedIn('en', '/system/user', 'victorOps', 'Victor#2');
    await page.waitForTimeout(2000);
    expect(new URL(page.url()).pathname).toBe('/system/user');
    await expect.poll(() => page.getByRole('cell', { name: 'victorOps', exact: true }).count()).toBe(1);
    await page.context().close();
  });

  it('filters the operation log by time, and picks an app scope from the permissions held', async () => {
    const page = await loggedIn('en', '/system/log');
    const total = async () => Number(/(\d+) in total/.exec((await page.getByText(/in total/).textContent()) ?? '')?.[1]);
    await expect.poll(total).toBeGreaterThan(0);
    await page.getByLabel('From').fill('2099-01-01T00:00:00');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(total).toBe(0);
    await page.getByLabel('From').fill('2000-01-01T00:00:00');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(total).toBeGreaterThan(0);

    await page.goto(`${base}/system/app`);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const form = page.getByRole('dialog');
    await form.locator('input[name=name]').fill('reporting');
    const scope = form.getByRole('group', { name: 'scope' });
    await scope.getByRole('checkbox', { name: 'system:user:list' }).click();
    expect(await scope.getByRole('checkbox', { name: /^platform:/ }).count()).toBe(0);
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('button', { name: 'I have saved it' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'reporting' }).textContent()).toContain('system:user:list');
    await page.context().close();
  });

  it('keeps the register draft across in-app navigation, never the password; white text on the theme blue', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.addInitScript("localStorage.setItem('lang', 'en')");
    await page.goto(`${base}/login`);
    const submit = page.locator('button[type=submit]');
    expect(await submit.evaluate((b) => b.ownerDocument.defaultView!.getComputedStyle(b).color)).toBe('rgb(255, 255, 255)');
    await page.goto(`${base}/register`);
    await page.fill('input[name=tenantName]', 'draftCo');
    await page.fill('input[name=contactName]', 'Han Meimei');
    await page.fill('input[name=password]', 'secret123');
    await page
      .getByRole('link', { name: /log in/i })
      .first()
      .click();
    await page.waitForURL('**/login**');
    await page
      .getByRole('link', { name: /register/i })
      .first()
      .click();
    await page.waitForURL('**/register');
    await expect.poll(() => page.inputValue('input[name=tenantName]')).toBe('draftCo');
    expect(await page.inputValue('input[name=contactName]')).toBe('Han Meimei');
    expect(await page.inputValue('input[name=password]')).toBe('');
    expect(await page.evaluate(() => sessionStorage.getItem('register.draft'))).not.toContain('secret123');
    await page.context().close();
  });

  it('keeps the action column in view at 1024 px', async () => {
    const page = await loggedIn('en', '/system/user');
    await page.setViewportSize({ width: 1024, height: 768 });
    const edit = page.getByRole('row').nth(1).getByRole('button', { name: 'Edit' });
    await expect.poll(() => edit.count()).toBe(1);
    // Within the screen and not hidden by the scrolling table's clip: the button is what a click there hits.
    await expect
      .poll(async () => {
        const box = (await edit.boundingBox())!;
        if (box.x + box.width > 1024) return false;
        return edit.evaluate(
          (button, [x, y]) => button.contains(button.ownerDocument.elementFromPoint(x!, y!)),
          [box.x + box.width / 2, box.y + box.height / 2],
        );
      })
      .toBe(true);
    expect(await edit.isVisible()).toBe(true);
    await page.context().close();
  });

  it('logs out to the login page without remembering the page it left', async () => {
    const page = await loggedIn('en', '/system/role');
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await page.getByRole('alertdialog').getByRole('button').last().click();
    await page.waitForURL('**/login**');
    expect(new URL(page.url()).search).toBe('');
    await page.context().close();
  });
});
