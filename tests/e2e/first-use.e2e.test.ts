import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinMenus } from '@iot/contracts/menu/catalogue.ts';
import type { Page } from 'playwright-core';
import { zh as alarmZh, en as alarmEn } from '../../web/src/alarm/strings.ts';
import { zh as fleetZh, en as fleetEn } from '../../web/src/fleet/strings.ts';
import { en } from '../../web/src/i18n/en.ts';
import { zh } from '../../web/src/i18n/zh.ts';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';
import { httpClientAs } from '../harness/http-client.ts';
import { seedChiller } from './chiller.ts';

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
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/**
 * What a new user tripped over on the built screens (issue 22), each held by a browser test: a forbidden click
 * that logged the auditor out, screens opened by address past the menu, background 403s, the device detail's
 * live trend and history, the grouping screen, and the language walk over every built screen, its dialogs and
 * the files it exports, in both languages.
 */
describe('first use of the built screens in a real browser', () => {
  let sut: BrowserPlatform;
  let base: string;

  beforeAll(async () => {
    // The demo tenant (its operator, auditor, fleet, alarms and simulator) beside a tenant whose data is in English.
    sut = await startBrowserPlatform(
      { id: 'whiskey', name: 'whiskeyCo', adminUsername: 'whiskeyAdmin', adminPassword: 'Whiskey#1' },
      {},
      { demo: true },
    );
    base = sut.base;
    const api = await httpClientAs(base, 'whiskeyAdmin', 'Whiskey#1');
    const { id: groupId } = await api.call('group.create', { body: { name: 'Plant Room', type: 'powerRoom', parentId: null } });
    await seedChiller(sut, api, {
      unit: 'C',
      device: { groupId, location: { lng: 121.4937, lat: 31.2304, address: 'Bund' }, tags: ['cooling'] },
      contact: { name: 'Duty', email: 'duty@whiskey.example' },
      template: 'Alarm Mail',
      config: 'Duty Mail',
      sendWays: ['email'],
    });
  }, 180_000);
  afterAll(async () => sut?.stop());

  const demo = (account: string, lang: 'zh' | 'en' = 'zh', then?: string) =>
    sut.loggedIn({ lang, account, password: 'demo123456', then, viewport: { width: 1280, height: 800 } });
  const notices = (page: Page) => page.locator('.notice').allTextContents();

  describe('what a user may and may not do', () => {
    it('lets the auditor mark their own inbox read from the bell, staying on the screen', async () => {
      // A fault entered by hand reaches the inbox at once (the duty configuration files every alarm there), so the
      // bell does not wait for the simulator's next voltage spike, which can take longer than any poll.
      const admin = await httpClientAs(base, 'demo', 'demo123456');
      const meter = (await admin.call('device.list', { query: { sn: 'DEMO-PM-11' } })).rows[0]!;
      const rows = [
        { deviceId: meter.id, variable: 'voltage', type: 'device', level: 4, trigger: 'manual', faultFlag: true, value: 230 },
      ] as const;
      await admin.call('alarm.manual', { body: { rows: [...rows] } });
      const page = await demo('demo_auditor', 'zh', '/alarm/monitor');
      await expect.poll(() => page.getByTestId('bell-count').count(), { timeout: 20_000 }).toBe(1);
      await page.getByTestId('bell').click();
      const markAll = page.getByRole('button', { name: '全部已读' });
      expect(await markAll.isEnabled()).toBe(true);
      await markAll.click();
      await expect.poll(() => page.getByTestId('bell-count').count()).toBe(0);
      expect(new URL(page.url()).pathname).toBe('/alarm/monitor');
      expect((await notices(page)).filter((n) => n.includes('没有权限'))).toEqual([]);
      // Its entries are buttons a keyboard reaches.
      expect(await page.locator('button.inbox-item').count()).toBeGreaterThan(0);
      await page.context().close();
    });

    it('shows the auditor no send again, which they may not do, and lets them mark records read', async () => {
      const page = await demo('demo_auditor', 'zh', '/alarm/notifyRecords');
      await expect.poll(() => page.getByRole('row').count(), { timeout: 20_000 }).toBeGreaterThan(1);
      expect(await page.getByRole('button', { name: '重新发送' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: '标记已读' }).isEnabled()).toBe(true);
      expect(new URL(page.url()).pathname).toBe('/alarm/notifyRecords');
      await page.context().close();
    });

    it('opens a screen by address only for whom the menu shows it, and asks nothing the screen may not read', async () => {
      const page = await demo('demo_operator', 'zh', '/system/user');
      const refused: string[] = [];
      page.on('response', (r) => r.status() === 403 && refused.push(`${r.request().method()} ${new URL(r.url()).pathname}`));
      await page.reload();
      await expect.poll(() => page.getByRole('row').count(), { timeout: 20_000 }).toBeGreaterThan(1);
      await page.waitForLoadState('networkidle');
      expect(refused).toEqual([]);
      await page.goto(`${base}/analysis/history`);
      await expect.poll(() => page.getByText('404').count()).toBeGreaterThan(0);
      expect(await page.getByRole('button', { name: '查询' }).count()).toBe(0);
      await page.context().close();
    });
  });

  describe('the device screens', () => {
    it('draws a live trend on the device detail that grows as values arrive over the websocket', async () => {
      const page = await demo('demo', 'zh', '/device/device');
      await page.getByRole('button', { name: '温湿度传感器 1号', exact: true }).click();
      await page.getByRole('tab', { name: '实时数据' }).click();
      const trend = page.getByRole('img', { name: '实时趋势' });
      await expect.poll(() => trend.count(), { timeout: 20_000 }).toBe(1);
      const points = async () => Number(await trend.getAttribute('data-points'));
      await expect.poll(points, { timeout: 20_000 }).toBeGreaterThan(0);
      const before = await points();
      // The simulator publishes every 5 s: the line grows without a reload.
      await expect.poll(points, { timeout: 20_000 }).toBeGreaterThan(before);
      expect(await page.getByRole('columnheader', { name: '值', exact: true }).count()).toBe(1);
      await page.context().close();
    });

    it('shows the grouping screen: the group tree with types, counts and online rate beside the devices of a group', async () => {
      const page = await demo('demo', 'zh', '/device/grouping');
      const plant = page.getByRole('treeitem').filter({ hasText: '浦东配电站' });
      await expect.poll(() => plant.textContent(), { timeout: 20_000 }).toMatch(/电站.*16 台 · 在线 \d+%/);
      await plant.getByRole('button', { name: '浦东配电站' }).click();
      await expect.poll(() => page.getByTestId('grouping-title').textContent()).toBe('浦东配电站');
      await expect.poll(() => page.getByText('共 16 条').count()).toBe(1);
      await page.context().close();
    });

    it("shows a device's history by names, labels and formatted values, never ids or JSON", async () => {
      const page = await sut.loggedIn({ lang: 'en', account: 'whiskeyAdmin', password: 'Whiskey#1', then: '/device/device' });
      await page.getByRole('button', { name: 'chiller one', exact: true }).click();
      await page.getByRole('tab', { name: 'Details' }).click();
      await expect.poll(() => page.getByRole('tabpanel').textContent()).toContain('121.4937, 31.2304');
      await page.getByRole('tab', { name: 'Change history' }).click();
      const panel = page.getByRole('tabpanel');
      await expect.poll(() => panel.textContent()).toContain('Chiller');
      const text = (await panel.textContent()) ?? '';
      expect(text).toContain('Plant Room');
      expect(text).toContain('whiskeyAdmin');
      expect(text).not.toMatch(UUID);
      expect(text).not.toMatch(/productId|groupId|nodeType|secretRotated|\{"|\["/);
      const now = new Date();
      await page.getByLabel('Instant').fill(new Date(now.getTime() - now.getTimezoneOffset() * 60_000).toISOString().slice(0, 19));
      await page.getByRole('button', { name: 'Show', exact: true }).click();
      const asOf = page.getByTestId('as-of');
      await expect.poll(() => asOf.textContent()).toContain('Chiller');
      expect(await asOf.textContent()).not.toMatch(/\{|\[|true|false/);
      expect(await asOf.textContent()).not.toMatch(UUID);
      await page.context().close();
    });
  });

  it("keeps a long list's sideways scrollbar and header in view at 1024 px, its actions column beside whole cells", async () => {
    const page = await sut.loggedIn({
      lang: 'zh',
      account: 'demo',
      password: 'demo123456',
      then: '/device/device',
      viewport: { width: 1024, height: 768 },
    });
    await expect.poll(() => page.getByRole('row').count(), { timeout: 20_000 }).toBeGreaterThan(15);
    const frame = await page.locator('.list-table .rt-ScrollAreaViewport').boundingBox();
    expect(frame!.y + frame!.height).toBeLessThanOrEqual(768);
    // No cell's text runs past its own cell (a cut word under the actions column).
    const overflowing = await page.evaluate<number>(
      `[...document.querySelectorAll('.list-table .cell-content')].filter((c) => c.scrollWidth > c.clientWidth + 1 && !c.querySelector('.ellipsis')).length`,
    );
    expect(overflowing).toBe(0);
    await page.context().close();
  });

  describe('the language walk: every built screen, its dialogs and the files it exports', () => {
    const cjk = /[\u3400-\u9fff\uff00-\uffef\u3000-\u303f]/;
    const leaves = (o: unknown, path = ''): Array<[string, string]> =>
      typeof o === 'string' ? [[path, o]] : Object.entries(o as object).flatMap(([k, v]) => leaves(v, path ? `${path}.${k}` : k));
    const zhByKey = new Map([...leaves(zh), ...leaves(fleetZh), ...leaves(alarmZh)]);
    // English labels that have a Chinese translation: on a Chinese screen each is a string left untranslated.
    const englishOnly = new Set(
      [...leaves(en), ...leaves(fleetEn), ...leaves(alarmEn)]
        .filter(([key, text]) => zhByKey.has(key) && zhByKey.get(key) !== text && /[a-z]{3}/i.test(text) && !text.includes('{{'))
        .map(([, text]) => text),
    );
    const keys = new Set([...zhByKey.keys()]);
    // A translation key shown as it is ('fleet.createTime'), or an event's name ('ProductCreated', 'AlarmRaised').
    const rawKey = (text: string) => keys.has(text) || /^[a-z]+\.[a-z][A-Za-z0-9.]*$/.test(text) || /^(?:[A-Z][a-z]+){2,}ed$/.test(text);
    const fallbackEnglish = /^[A-Z][a-z]+( [a-z]+)+$/;
    const fault = (lang: 'zh' | 'en', text: string) =>
      rawKey(text) || (lang === 'en' ? cjk.test(text) : englishOnly.has(text) || fallbackEnglish.test(text));

    const screens = [
      '/index',
      '/device/device',
      '/device/gateway',
      '/device/product',
      '/device/grouping',
      '/device/template',
      '/device/mqttConfig',
      '/analysis/history',
      '/alarm/monitor',
      '/alarm/settings',
      '/alarm/notifySettings',
      '/alarm/contacts',
      '/alarm/notifyTemplates',
      '/alarm/notifyConfigs',
      '/alarm/notifyRecords',
      '/system/user',
      '/system/role',
      '/system/dept',
      '/system/app',
      '/system/dict',
      '/system/settings',
      '/system/log',
      '/system/audit',
    ];
    // Then every other screen of the menu a tenant has (rules, scenes, forwarding, analysis, operation, files, OTA,
    // product test, video...), it and its add dialog: no raw key, no Chinese in English, no English fallback in Chinese.
    const otherScreens = builtinMenus
      .filter((m) => m.type === 'menu' && m.parentId && !m.permission?.startsWith('platform:') && !screens.includes(m.path))
      .map((m) => m.path);
    it('knows the labels to look for', () => expect(englishOnly.size).toBeGreaterThan(500));
    it('walks every screen of the menu', () => expect(screens.length + otherScreens.length).toBeGreaterThan(60));

    for (const lang of ['en', 'zh'] as const) {
      it(`shows and exports no string of the other language and no raw key in ${lang}`, async () => {
        const t = lang === 'en' ? { add: 'Add', export: 'Export', cancel: 'Cancel' } : { add: '新增', export: '导出', cancel: '取消' };
        const faults: string[] = [];
        const page = await sut.loggedIn({ lang, account: 'whiskeyAdmin', password: 'Whiskey#1', viewport: { width: 1280, height: 800 } });
        const look = async (where: string) => {
          await page.waitForLoadState('networkidle');
          await page.waitForTimeout(300);
          for (const text of await page.evaluate<string[]>(VISIBLE_TEXTS)) if (fault(lang, text)) faults.push(`${where}: ${text}`);
        };
        /** The screen, then its add dialog. */
        const visit = async (screen: string) => {
          await page.goto(`${base}${screen}`);
          await look(screen);
          const add = page.getByRole('button', { name: t.add, exact: true });
          if ((await add.count()) > 0 && (await add.first().isEnabled())) {
            await add.first().click();
            await page.getByRole('dialog').last().waitFor();
            await look(`${screen} (add dialog)`);
            await page.keyboard.press('Escape');
            await page
              .getByRole('dialog')
              .last()
              .waitFor({ state: 'detached' })
              .catch(() => undefined);
          }
        };
        for (const screen of otherScreens) await visit(screen);
        for (const screen of screens) {
          await visit(screen);
          // The file it exports: its header row.
          const exporter = page.getByRole('button', { name: t.export });
          if ((await exporter.count()) > 0 && (await exporter.first().isEnabled())) {
            await exporter.first().click();
            const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: 'CSV' }).click()]);
            const file = readFileSync((await download.path())!, 'utf8').replace(/^\uFEFF/, '');
            const name = download.suggestedFilename();
            if (fault(lang, name.replace(/-\d{4}-\d{2}-\d{2}\.csv$/, ''))) faults.push(`${screen} file name: ${name}`);
            for (const header of file.split(/\r?\n/)[0]!.split(','))
              if (fault(lang, header.replace(/^"|"$/g, ''))) faults.push(`${screen} export: ${header}`);
          }
        }
        // The device detail's tabs.
        await page.goto(`${base}/device/device`);
        await page.getByRole('button', { name: 'chiller one', exact: true }).click();
        for (const tab of await page.getByRole('dialog').getByRole('tab').all()) {
          await tab.click();
          await look(`device detail ${await tab.textContent()}`);
        }
        await page.context().close();
        expect([...new Set(faults)]).toEqual([]);
      }, 900_000);
    }
  });
});
