import { execSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Platform } from '@iot/infra/platform.ts';
import { en } from '../../web/src/i18n/en.ts';
import { zh } from '../../web/src/i18n/zh.ts';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';
import { httpClient, httpClientAs, type HttpClient } from '../harness/http-client.ts';
import { png } from '../harness/png.ts';

/** In the page: what of the brand (logo, system name) leaves the sidebar and what of the header leaves it or crowds it. */
const HEADER_AND_SIDEBAR_FAULTS = `(() => {
  const box = (selector) => document.querySelector(selector)?.getBoundingClientRect();
  const sidebar = box('.sidebar');
  const header = box('.header');
  const brand = box('.brand');
  const faults = [];
  // The name is not shown in the collapsed sidebar.
  for (const selector of ['.brand img', '.brand-name']) {
    const b = box(selector);
    if (b && (b.left < sidebar.left || b.right > sidebar.right + 0.5 || b.bottom > brand.bottom + 0.5)) faults.push(selector);
  }
  for (const selector of ['.user-button', '[data-testid=lang-switch]']) {
    const b = box(selector);
    if (b.right > header.right + 0.5 || b.left < header.left) faults.push(selector);
  }
  // A long user name takes its share of the header, not the breadcrumb's room.
  if (box('.user-button').width > 240) faults.push('user name wider than 240 px');
  const crumbs = document.querySelector('.breadcrumb');
  if (crumbs.scrollWidth > crumbs.clientWidth + 1) faults.push('breadcrumb cut');
  if (document.documentElement.scrollWidth > window.innerWidth) faults.push('page scrolls sideways');
  return faults;
})()`;

/** In the page: every visible text, the tab title, placeholders, titles and accessible labels. */
const VISIBLE_TEXTS = `(() => {
  const out = [document.title];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (el && el.offsetParent !== null && n.textContent.trim()) out.push(n.textContent.trim());
  }
  for (const el of document.querySelectorAll('[placeholder],[title],[aria-label]'))
    for (const a of ['placeholder', 'title', 'aria-label']) if (el.getAttribute(a)) out.push(el.getAttribute(a));
  return out;
})()`;

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

  /** A built-in role's id in the tenant, to give a user created through the API. */
  const builtinRole = async (api: HttpClient, key: string) =>
    (await api.call('role.list', { query: { pageSize: 50 } })).rows.find((r) => r.builtin === key)!.id;
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
    const api = await httpClientAs(platform.url!, 'victorAdmin', 'Victor#1');
    const operatorRole = await builtinRole(api, 'operator');
    await api.call('user.create', {
      body: {
        username: 'victorOps',
        password: 'Victor#2',
        email: 'ops@victor.example',
        phone: '13800000077',
        sex: 'male',
        status: 'enabled',
        roleIds: [operatorRole],
      },
    });
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

  it('narrows the user list to the group chosen in the header, keeps it across a reload, forgets it at logout', async () => {
    const api = await httpClientAs(base, 'victorAdmin', 'Victor#1');
    const auditor = await builtinRole(api, 'auditor');
    const north = (await api.call('group.create', { body: { name: 'North Region', type: 'institution' } })).id;
    const site = (await api.call('group.create', { body: { name: 'North Site', type: 'site', parentId: north } })).id;
    const south = (await api.call('group.create', { body: { name: 'South Region', type: 'institution' } })).id;
    const user = (username: string, groupId: string, phone: string) =>
      api.call('user.create', {
        body: {
          username,
          groupId,
          phone,
          password: 'Victor#3',
          email: `${username.toLowerCase()}@victor.example`,
          sex: 'female',
          status: 'enabled',
          roleIds: [auditor],
        },
      });
    await user('victorNorth', site, '13800000101');
    await user('victorSouth', south, '13800000102');

    const page = await loggedIn('en', '/system/user');
    const listed = (name: string) => page.getByRole('cell', { name, exact: true }).count();
    await expect.poll(() => listed('victorSouth')).toBe(1);
    const switcher = page.getByTestId('station-switch');
    await switcher.click();
    await page.getByRole('option', { name: 'North Region' }).click();
    // Its subtree only: the user of the child group, not the other region's nor the administrator without a group.
    await expect.poll(() => listed('victorSouth')).toBe(0);
    await expect.poll(() => listed('victorNorth')).toBe(1);
    expect(await listed('victorAdmin')).toBe(0);
    expect(await page.evaluate(() => localStorage.getItem('stationId'))).toBe(north);

    await page.reload();
    await expect.poll(() => switcher.textContent()).toContain('North Region');
    await expect.poll(() => listed('victorNorth')).toBe(1);
    expect(await listed('victorSouth')).toBe(0);
    // The switcher still offers every group (it is asked without the current one), so another can be chosen.
    await switcher.click();
    await expect.poll(() => page.getByRole('option', { name: 'South Region' }).count()).toBe(1);
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await page.getByRole('alertdialog').getByRole('button').last().click();
    await page.waitForURL('**/login**');
    // The page leaves for login first and forgets the session once the server has ended it.
    await expect.poll(() => page.evaluate(() => localStorage.getItem('stationId'))).toBeNull();
    await page.fill('input[name=account]', 'victorAdmin');
    await page.fill('input[name=password]', 'Victor#1');
    await page.click('[data-testid=agreement]');
    await page.click('button[type=submit]');
    await page.waitForURL('**/index');
    await page.goto(`${base}/system/user`);
    await expect.poll(() => listed('victorSouth')).toBe(1);
    expect(await listed('victorNorth')).toBe(1);
    await page.context().close();
  });

  it('paints the reject button of the tenant audit red, in the row and in its dialog', async () => {
    const visitor = httpClient(base);
    expect((await visitor.send('tenant.sendCode', { body: { method: 'email', target: 'pending@victor.example' } })).status).toBe(200);
    const code = (
      await platform.context.db.query<{ body: string }>(
        "select body from notify_outbox where recipient = 'pending@victor.example' order by id desc limit 1",
      )
    ).rows[0]!.body.match(/\b\d{6}\b/)![0];
    await visitor.call('tenant.register', {
      body: {
        tenantName: 'pendingCo',
        contactName: 'Li Lei',
        company: 'Pending Ltd',
        method: 'email',
        email: 'pending@victor.example',
        code,
        password: 'Pending#1',
      },
    });
    const page = await sut.loggedIn({ lang: 'en', account: 'admin', password: 'admin123', then: '/system/tenant' });
    const row = page.getByRole('row').filter({ hasText: 'pendingCo' });
    const reject = row.getByRole('button', { name: 'Reject', exact: true });
    await expect.poll(() => reject.count()).toBe(1);
    const approveColour = await row
      .getByRole('button', { name: 'Approve', exact: true })
      .evaluate((b) => b.ownerDocument.defaultView!.getComputedStyle(b).color);
    const red = (colour: string) => {
      const [r, g, b] = colour.match(/\d+/g)!.map(Number);
      return r! > 150 && r! > g! + 60 && r! > b! + 60;
    };
    expect(red(await reject.evaluate((b) => b.ownerDocument.defaultView!.getComputedStyle(b).color))).toBe(true);
    expect(red(approveColour)).toBe(false);
    await reject.click();
    const submit = page.getByRole('dialog').getByRole('button', { name: 'Reject', exact: true });
    expect(red(await submit.evaluate((b) => b.ownerDocument.defaultView!.getComputedStyle(b).backgroundColor))).toBe(true);
    await page.context().close();
  });

  it('keeps a wide logo, a long system name and a long user name inside the header and the sidebar', async () => {
    const longName = 'Shanghai Municipal Integrated Energy and Equipment Monitoring Cloud'.slice(0, 64);
    const longUser = 'victorOperatorWithAVeryLongAccountNameIndeed';
    const api = await httpClientAs(base, 'victorAdmin', 'Victor#1');
    const auditor = await builtinRole(api, 'auditor');
    await api.call('settings.update', { body: { systemName: longName } });
    await api.call('settings.uploadLogo', { body: png(600, 60) });
    await api.call('user.create', {
      body: {
        username: longUser,
        password: 'Victor#4',
        email: 'long@victor.example',
        phone: '13800000103',
        sex: 'male',
        status: 'enabled',
        roleIds: [auditor],
      },
    });
    for (const width of [1440, 1024]) {
      const page = await sut.loggedIn({
        lang: 'en',
        account: longUser,
        password: 'Victor#4',
        then: '/system/user',
        viewport: { width, height: 800 },
      });
      await expect
        .poll(() =>
          page.locator('.brand img').evaluate((img: { complete: boolean; naturalWidth: number }) => img.complete && img.naturalWidth),
        )
        .toBe(600);
      const inside = async () => page.evaluate<string[]>(HEADER_AND_SIDEBAR_FAULTS);
      expect(await inside(), `at ${width} px`).toEqual([]);
      // The whole name stays reachable on hover.
      expect(await page.locator('.user-button').getAttribute('title')).toBe(longUser);
      // Collapsed, the logo keeps to the narrow sidebar.
      await page.getByRole('button', { name: 'Collapse' }).click();
      await expect.poll(inside).toEqual([]);
      await page.getByRole('button', { name: 'Expand' }).click();
      await page.context().close();
    }
    await api.call('settings.update', { body: { systemName: 'victorCo cloud' } });
  });

  it('has a CJK font for Chinese screens and screenshots (installed with the browser)', () => {
    expect(execSync('fc-list :lang=zh family', { encoding: 'utf8' })).toMatch(/CJK|Hei|Song|Kai|Ming|WenQuanYi/);
  });

  describe('the system screens speak one language', () => {
    const cjk = /[\u3400-\u9fff\uff00-\uffef\u3000-\u303f]/;
    // English labels of the app that have a Chinese translation: on a Chinese screen each is a string left untranslated.
    const leaves = (o: unknown, path = ''): Array<[string, string]> =>
      typeof o === 'string' ? [[path, o]] : Object.entries(o as object).flatMap(([k, v]) => leaves(v, path ? `${path}.${k}` : k));
    const zhByKey = new Map(leaves(zh));
    const englishOnly = new Set(
      leaves(en)
        .filter(([key, text]) => zhByKey.has(key) && zhByKey.get(key) !== text && /[a-z]{3}/i.test(text) && !text.includes('{{'))
        .map(([, text]) => text),
    );
    // What a screen shows for a name it has no translation of ('TenantOnboarded' read as 'Tenant onboarded').
    const fallbackEnglish = /^[A-Z][a-z]+( [a-z]+)+$/;
    it('knows the English labels to look for', () => expect(englishOnly.size).toBeGreaterThan(200));
    // The tenant's administrator sees the tenant's screens and log; the system administrator the menus and tenants.
    const visits = [
      { account: 'admin', password: 'admin123', screens: ['/index', '/system/log', '/system/menu', '/system/tenant'] },
      {
        account: 'victorAdmin',
        password: 'Victor#1',
        screens: ['/index', ...['user', 'role', 'dept', 'app', 'dict', 'settings', 'log', 'audit'].map((s) => `/system/${s}`)],
      },
    ];
    const textsOf = (page: Page) => page.evaluate<string[]>(VISIBLE_TEXTS);

    for (const lang of ['en', 'zh'] as const) {
      it(`shows no string of the other language on the system screens in ${lang}`, async () => {
        const faults: string[] = [];
        for (const { account, password, screens } of visits) {
          const page = await sut.loggedIn({ lang, account, password });
          for (const screen of screens) {
            await page.goto(`${base}${screen}`);
            await page.waitForLoadState('networkidle');
            await page.waitForTimeout(300);
            for (const text of await textsOf(page)) {
              if (lang === 'en' ? cjk.test(text) : englishOnly.has(text) || fallbackEnglish.test(text))
                faults.push(`${account} ${screen}: ${text}`);
            }
          }
          await page.context().close();
        }
        expect([...new Set(faults)]).toEqual([]);
      });
    }
  });
});
