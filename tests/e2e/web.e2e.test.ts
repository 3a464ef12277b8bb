import { execSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { loadConfig } from '@iot/infra/config.ts';
import { startPlatform, type Platform } from '@iot/infra/platform.ts';
import { specOf } from '../harness/api.ts';
import { WEB_DIST } from '../harness/browser.ts';
import { freePort } from '../harness/free-port.ts';
import { httpClientAs } from '../harness/http-client.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';
import { png } from '../harness/png.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// No Chromium is a failure, never a skip: `npm test` installs it first (.ci/install-engines.sh).
if (!existsSync(CHROMIUM)) {
  throw new Error(`${CHROMIUM} is missing: run \`bash .ci/install-engines.sh\` (\`npm test\` does) or \`apt-get install -y chromium\``);
}

describe('admin web app in a real browser', () => {
  let db: TestDatabase;
  let platform: Platform;
  let browser: Browser;
  let base: string;
  let dataDir: string;
  const tenant = `acme${Date.now().toString(36)}`;
  const tenantPassword = 'secret123';
  const phone = `138${String(Date.now()).slice(-8)}`;

  beforeAll(async () => {
    // The app under test is the built one the server serves; build it when this checkout has none.
    if (!existsSync(path.join(WEB_DIST, 'index.html'))) execSync(`npm run build -w web -- --outDir ${WEB_DIST}`, { stdio: 'inherit' });
    db = await createTestDatabase();
    dataDir = mkdtempSync(path.join(tmpdir(), 'web-e2e-'));
    platform = await startPlatform(
      loadConfig({
        ...process.env,
        ADMIN_PASSWORD: 'admin123',
        DATA_DIR: dataDir,
        DATABASE_URL: db.url,
        MQTT_PORT: String(await freePort()),
        // Every request of the browser would be a log line: keep the run's output to what failed.
        LOG_LEVEL: 'warn',
      }),
      {
        port: 0,
        staticDir: WEB_DIST,
      },
    );
    base = platform.url!;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  async function newPage(lang: 'zh' | 'en' = 'zh'): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    if (lang === 'en') await page.addInitScript("localStorage.setItem('lang', 'en')");
    return page;
  }

  async function login(page: Page, account: string, password: string) {
    await page.goto(`${base}/login`);
    await page.fill('input[name=account]', account);
    await page.fill('input[name=password]', password);
    await page.click('[data-testid=agreement]');
    await page.click('button[type=submit]');
  }

  async function adminPage(lang: 'zh' | 'en' = 'en'): Promise<Page> {
    const page = await newPage(lang);
    await login(page, 'admin', 'admin123');
    await page.waitForURL('**/index');
    return page;
  }

  /** Calls the API as the system administrator: the quick way to set up what a test is not about. */
  const asAdmin = () => httpClientAs(base, 'admin', 'admin123');

  const tabNames = (page: Page) => page.locator('.tag-list [role=tab] a').allTextContents();

  const confirmDialog = (page: Page) => page.getByRole('alertdialog').getByRole('button').last().click();

  it('a wrong password shows the error in Chinese, then in English after switching language', async () => {
    const page = await newPage();
    await login(page, 'admin', 'wrong-password');
    await expect.poll(() => page.getByTestId('login-error').textContent()).toBe('用户名或密码错误');
    await page.getByTestId('lang-switch').click();
    await page.getByRole('option', { name: 'English' }).click();
    await expect.poll(() => page.locator('button[type=submit]').textContent()).toBe('Log in');
    await page.click('button[type=submit]');
    await expect.poll(() => page.getByTestId('login-error').textContent()).toBe('Username or password incorrect');
    expect(await page.evaluate("localStorage.getItem('lang')")).toBe('en');
    await page.context().close();
  });

  it('the login form checks the agreement before sending', async () => {
    const page = await newPage('en');
    await page.goto(`${base}/login`);
    await page.fill('input[name=account]', 'admin');
    await page.fill('input[name=password]', 'admin123');
    await page.click('button[type=submit]');
    await expect.poll(() => page.getByText('Please read and accept the user agreement').count()).toBeGreaterThan(0);
    expect(page.url()).toContain('/login');
    await page.context().close();
  });

  it('a visitor registers a tenant with a phone code, the administrator approves it, and its administrator logs in', async () => {
    const visitor = await newPage('en');
    await visitor.goto(`${base}/register`);
    await visitor.fill('input[name=tenantName]', tenant);
    await visitor.fill('input[name=contactName]', 'Li Lei');
    await visitor.fill('input[name=company]', 'Acme Ltd');
    await visitor.fill('input[name=target]', phone);
    await visitor.getByTestId('send-code').click();
    await expect.poll(() => visitor.getByTestId('send-code').textContent()).toMatch(/Resend in \d+ s/);
    const sent = await db.pool.query<{ body: string }>('select body from notify_outbox where recipient = $1 order by id desc limit 1', [
      phone,
    ]);
    const code = /\b(\d{6})\b/.exec(sent.rows[0]?.body ?? '')?.[1];
    expect(code).toMatch(/^\d{6}$/);
    await visitor.fill('input[name=code]', code!);
    await visitor.fill('input[name=password]', tenantPassword);
    await visitor.fill('input[name=confirmPassword]', tenantPassword);
    await visitor.click('button[type=submit]');
    await expect.poll(() => visitor.getByTestId('register-done').count()).toBe(1);
    await visitor.context().close();

    const admin = await newPage();
    await login(admin, 'admin', 'admin123');
    await admin.waitForURL('**/index');
    await admin
      .getByRole('link', { name: '租户审核' })
      .or(admin.getByRole('button', { name: '系统管理' }))
      .first()
      .click();
    await admin.goto(`${base}/system/tenant`);
    const row = admin.getByRole('row').filter({ hasText: tenant });
    await expect.poll(() => row.getByText('审核中').count()).toBe(1);
    await row.getByRole('button', { name: '同意' }).click();
    await confirmDialog(admin);
    await expect.poll(() => row.getByText('已通过').count(), { timeout: 15_000 }).toBe(1);
    await admin.context().close();

    const tenantAdmin = await newPage('en');
    await login(tenantAdmin, tenant, tenantPassword);
    await tenantAdmin.waitForURL('**/index');
    await expect.poll(() => tenantAdmin.getByText(`Welcome back, ${tenant}`).count()).toBe(1);
    // A tenant administrator does not audit tenants: that belongs to the system administrator.
    await tenantAdmin.goto(`${base}/system/tenant`);
    await expect.poll(() => tenantAdmin.getByText('This page does not exist, or you may not open it.').count()).toBe(1);
    await tenantAdmin.context().close();
  });

  it('the data big screen, once a later-release placeholder, is a real screen, and a call answered 401 returns to login', async () => {
    const page = await newPage('en');
    await login(page, 'admin', 'admin123');
    await page.waitForURL('**/index');
    await page.goto(`${base}/operation/bigScreen`);
    await expect.poll(() => page.getByTestId('big-screen').textContent()).toContain('IoT data big screen');
    expect(await page.getByTestId('coming-soon').count()).toBe(0);
    await page.evaluate("localStorage.setItem('token', 'not-a-token')");
    await page.context().clearCookies();
    await page.goto(`${base}/system/tenant`);
    await page.waitForURL('**/login**');
    await page.context().close();
  });

  it('the tenant administrator creates a group, a role and a user, who sees only the granted menus', async () => {
    const page = await newPage('en');
    await login(page, tenant, tenantPassword);
    await page.waitForURL('**/index');

    await page.goto(`${base}/system/dept`);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const groupDialog = page.getByRole('dialog');
    await groupDialog.locator('input[name=name]').fill('Plant A');
    await groupDialog.getByRole('combobox', { name: 'type' }).click();
    await page.getByRole('option', { name: 'Office' }).click();
    await groupDialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Plant A' }).count()).toBe(1);

    await page.goto(`${base}/system/role`);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const roleDialog = page.getByRole('dialog');
    await roleDialog.locator('input[name=name]').fill('Viewer');
    const grant = roleDialog
      .locator('.check-row')
      .filter({ hasText: /^(Users|用户管理)/ })
      .first();
    await grant.getByRole('checkbox').click();
    await roleDialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'Viewer' }).count()).toBe(1);

    await page.goto(`${base}/system/user`);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const userDialog = page.getByRole('dialog');
    await userDialog.locator('input[name=username]').fill('viewer1');
    await userDialog.locator('input[name=password]').fill('viewer123');
    await userDialog.getByRole('combobox', { name: 'sex' }).click();
    await page.getByRole('option', { name: 'Female' }).click();
    await userDialog.locator('input[name=email]').fill('viewer1@example.com');
    await userDialog.locator('input[name=phone]').fill('13900000001');
    await userDialog.getByTestId('user-roles').getByText('Viewer').click();
    await userDialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'viewer1' }).count()).toBe(1);
    await page.context().close();

    const viewer = await newPage('en');
    await login(viewer, 'viewer1', 'viewer123');
    await viewer.waitForURL('**/index');
    const menu = viewer.getByRole('navigation', { name: 'menu' });
    await expect.poll(() => menu.textContent()).toContain('System management');
    const text = (await menu.textContent()) ?? '';
    expect(text).not.toContain('Device management');
    expect(text).not.toContain('Tenant audit');
    await viewer.context().close();
  });
  it('apps and keys: the new secret is shown once, copies to the clipboard, and appears nowhere after', async () => {
    const page = await adminPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await page.goto(`${base}/system/app`);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('dialog').locator('input[name=name]').fill('Line monitor');
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    const secret = (await page.getByTestId('appSecret').textContent()) ?? '';
    const appKey = (await page.getByTestId('appKey').textContent()) ?? '';
    expect(secret.length).toBeGreaterThan(16);
    await page.getByRole('dialog').getByRole('button', { name: 'Copy' }).last().click();
    await expect.poll(() => page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    await page.getByRole('button', { name: 'I have saved it' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Line monitor' });
    await expect.poll(() => row.textContent()).toContain(appKey);
    expect(await page.content()).not.toContain(secret);
    await row.getByRole('button', { name: 'Copy key' }).click();
    await expect.poll(() => page.evaluate('navigator.clipboard.readText()')).toBe(appKey);
    await page.context().close();
  });

  it('dictionaries: a dictionary gets an item', async () => {
    const page = await adminPage();
    await page.goto(`${base}/system/dict`);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('dialog').locator('input[name=code]').fill('line_colour');
    await page.getByRole('dialog').locator('input[name=name]').fill('Line colours');
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    const row = page.getByRole('row').filter({ hasText: 'line_colour' });
    await row.getByRole('button', { name: 'Items' }).click();
    const items = page.getByRole('dialog', { name: 'Items of Line colours' });
    await items.getByRole('button', { name: 'Add', exact: true }).click();
    const item = page.getByRole('dialog').last();
    await item.locator('input[name=label]').fill('Red');
    await item.locator('input[name=value]').fill('red');
    await item.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => items.getByRole('row').filter({ hasText: 'Red' }).count()).toBe(1);
    await page.context().close();
  });

  it('settings: a PNG logo is scaled to 30 px high and shows in the sidebar', async () => {
    const page = await adminPage();
    await page.goto(`${base}/system/settings`);
    await page.getByTestId('logo-input').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png(120, 60) });
    await expect.poll(() => page.getByText('The new logo applies once you save').count()).toBe(1);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByText('Saved').count()).toBeGreaterThan(0);
    // The stored logo, fetched as the page does (with its session): a PNG 30 px high, width in proportion.
    const stored = await page.evaluate(async (url) => {
      const answer = await fetch(url);
      const view = new DataView(await answer.arrayBuffer());
      return { type: answer.headers.get('content-type'), size: [view.getUint32(16), view.getUint32(20)] };
    }, specOf('settings.userLogo').path);
    expect(stored).toEqual({ type: expect.stringContaining('image/png'), size: [60, 30] });
    await page.reload();
    await expect.poll(() => page.locator('.brand img').evaluate((img: { naturalWidth: number }) => img.naturalWidth)).toBe(60);
    await page.context().close();
  });

  it('menus: moving an entry up changes the order, moving it down restores it', async () => {
    const page = await adminPage();
    await page.goto(`${base}/system/menu`);
    const order = async () => {
      const paths = await page.locator('tbody tr td:nth-child(4)').allTextContents();
      return paths.filter((p) => p === '/device/device' || p === '/device/gateway');
    };
    await expect.poll(order).toEqual(['/device/device', '/device/gateway']);
    // The screen's own row, not its buttons' (whose paths are `/device/gateway#...`).
    const gateway = page.getByRole('row').filter({ has: page.getByRole('cell', { name: '/device/gateway', exact: true }) });
    await gateway.getByRole('button', { name: 'Up' }).click();
    await expect.poll(order).toEqual(['/device/gateway', '/device/device']);
    await gateway.getByRole('button', { name: 'Down' }).click();
    await expect.poll(order).toEqual(['/device/device', '/device/gateway']);
    await page.context().close();
  });

  it('operation log: filtered by operation, exported to CSV with the same rows', async () => {
    const page = await adminPage();
    await page.goto(`${base}/system/log`);
    await page.getByRole('combobox', { name: 'Operation' }).click();
    await page.getByRole('option', { name: 'Menu created' }).click();
    await page.getByRole('button', { name: 'Search' }).click();
    const operations = () => page.locator('tbody tr td:nth-child(4)').allTextContents();
    await expect.poll(async () => new Set(await operations())).toEqual(new Set(['Menu created']));
    const total = Number(/(\d+) in total/.exec((await page.getByText(/in total/).textContent()) ?? '')?.[1]);
    expect(total).toBeGreaterThan(20);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page
        .getByRole('button', { name: 'Export' })
        .click()
        .then(() => page.getByRole('menuitem', { name: 'CSV' }).click()),
    ]);
    expect(download.suggestedFilename()).toMatch(/^Operation log-\d{4}-\d{2}-\d{2}\.csv$/);
    const lines = readFileSync((await download.path())!, 'utf8')
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('Time,User,Done by,Operation,Target,IP address');
    expect(lines.length - 1).toBe(total);
    expect(lines.slice(1).every((line) => line.split(',')[3] === 'Menu created')).toBe(true);
    await page.context().close();
  });

  it('tag tabs: close one, close others, close all, each surviving a reload', async () => {
    const page = await adminPage();
    for (const [screen, tab] of [
      ['user', 'Users'],
      ['role', 'Roles'],
      ['dept', 'Groups'],
    ]) {
      await page.goto(`${base}/system/${screen}`);
      await expect.poll(() => tabNames(page)).toContain(tab);
    }
    await expect.poll(() => tabNames(page)).toEqual(['Home', 'Users', 'Roles', 'Groups']);
    await page.reload();
    await expect.poll(() => tabNames(page)).toEqual(['Home', 'Users', 'Roles', 'Groups']);

    await page.locator('.tag', { hasText: 'Roles' }).getByRole('button', { name: 'Close tab' }).click();
    await expect.poll(() => tabNames(page)).toEqual(['Home', 'Users', 'Groups']);
    await page.reload();
    await expect.poll(() => tabNames(page)).toEqual(['Home', 'Users', 'Groups']);

    await page.getByRole('button', { name: 'Tab actions' }).click();
    await page.getByRole('menuitem', { name: 'Close others' }).click();
    await expect.poll(() => tabNames(page)).toEqual(['Home', 'Groups']);
    await page.reload();
    await expect.poll(() => tabNames(page)).toEqual(['Home', 'Groups']);

    await page.getByRole('button', { name: 'Tab actions' }).click();
    await page.getByRole('menuitem', { name: 'Close all' }).click();
    await page.waitForURL('**/index');
    await page.reload();
    await expect.poll(() => tabNames(page)).toEqual(['Home']);
    await page.context().close();
  });

  it('leaving a form with unsaved changes asks first, in a dialog and on a page', async () => {
    const page = await adminPage();
    await page.goto(`${base}/system/role`);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('dialog').locator('input[name=name]').fill('Half done');
    await page.keyboard.press('Escape');
    const ask = page.getByRole('alertdialog');
    await expect.poll(() => ask.textContent()).toContain('This form has unsaved changes');
    await ask.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByRole('dialog').locator('input[name=name]').inputValue()).toBe('Half done');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await ask.getByRole('button', { name: 'Leave' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);

    await page.goto(`${base}/profile`);
    await page.locator('input[name=position]').fill('Shift lead');
    await page.locator('.tag', { hasText: 'Home' }).getByRole('link').click();
    await expect.poll(() => ask.textContent()).toContain('This form has unsaved changes');
    await ask.getByRole('button', { name: 'Cancel' }).click();
    expect(page.url()).toContain('/profile');
    await page.locator('.tag', { hasText: 'Home' }).getByRole('link').click();
    await ask.getByRole('button', { name: 'Leave' }).click();
    await page.waitForURL('**/index');
    await page.context().close();
  });

  it('my profile: contact details are saved and read back', async () => {
    const page = await adminPage();
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'My profile' }).click();
    await page.waitForURL('**/profile');
    await expect.poll(() => page.getByTestId('profile-username').textContent()).toBe('admin');
    await page.locator('input[name=email]').fill('admin@example.com');
    await page.locator('input[name=phone]').fill('13700000000');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByText('Saved').count()).toBeGreaterThan(0);
    await page.reload();
    await expect.poll(() => page.locator('input[name=email]').inputValue()).toBe('admin@example.com');
    expect(await page.locator('input[name=phone]').inputValue()).toBe('13700000000');
    await page.context().close();
  });

  it('a stopped user cannot log in until started again', async () => {
    const admin = await asAdmin();
    const role = await admin.call('role.create', { body: { name: 'Night shift', remark: null, menuIds: [] } });
    await admin.call('user.create', {
      body: {
        username: 'nightop',
        password: 'night123',
        sex: 'male',
        email: 'night@example.com',
        phone: '13600000000',
        roleIds: [role.id],
        status: 'enabled',
        position: null,
        groupId: null,
        description: null,
        homePage: null,
      },
    });
    const page = await adminPage();
    await page.goto(`${base}/system/user`);
    const row = page.getByRole('row').filter({ hasText: 'nightop' });
    await row.getByRole('button', { name: 'Stop' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => row.getByText('Stopped').count()).toBe(1);

    const operator = await newPage('en');
    await login(operator, 'nightop', 'night123');
    await expect.poll(() => operator.getByTestId('login-error').count()).toBe(1);
    expect(operator.url()).toContain('/login');

    await row.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => row.getByText('Enabled').count()).toBe(1);
    await operator.click('button[type=submit]');
    await operator.waitForURL('**/index');
    await operator.context().close();
    await page.context().close();
  });

  it('users: edit and save changes the row; delete removes it (both failed before)', async () => {
    const admin = await asAdmin();
    const role = await admin.call('role.create', { body: { name: 'Edit probe', remark: null, menuIds: [] } });
    for (const [username, phone] of [
      ['editme', '13600000001'],
      ['deleteme', '13600000002'],
    ] as const)
      await admin.call('user.create', {
        body: {
          username,
          password: 'probe123',
          sex: 'male',
          email: `${username}@example.com`,
          phone,
          roleIds: [role.id],
          status: 'enabled',
          position: null,
          groupId: null,
          description: null,
          homePage: null,
        },
      });
    const page = await adminPage();
    await page.goto(`${base}/system/user`);
    const editRow = page.getByRole('row').filter({ hasText: 'editme' });
    await editRow.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('input[name=position]').fill('Shift lead');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => editRow.getByText('Shift lead').count()).toBe(1);

    const deleteRow = page.getByRole('row').filter({ hasText: 'deleteme' });
    await deleteRow.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'deleteme' }).count()).toBe(0);
    await page.context().close();
  });
});
