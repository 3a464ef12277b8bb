import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event, manualAlarm } from '../fixtures/events.ts';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';
import { httpClientAs } from '../harness/http-client.ts';

/**
 * The data big screen designer as an operator uses it (issue 20): a screen built from the palette with a number card
 * bound to a pump's pressure, an alarm list and a clock, saved, reloaded, shared, and the link opened logged out.
 * In en and zh; screenshots go to SHOTS_DIR.
 */
const SHOTS = process.env.SHOTS_DIR ?? path.join(tmpdir(), 'shots-screen');
const wait = { timeout: 20_000 };

describe('big screen designer in a real browser', () => {
  let sut: BrowserPlatform;
  let device: string;

  beforeAll(async () => {
    sut = await startBrowserPlatform({ id: 'zulu', name: 'zuluCo', adminUsername: 'zuluAdmin', adminPassword: 'Zulu#pw1' });
    mkdirSync(SHOTS, { recursive: true });
    const api = await httpClientAs(sut.base, 'zuluAdmin', 'Zulu#pw1');
    const productId = (await api.call('product.create', { body: { name: 'Pump', code: 'PMP', type: 'direct' } })).id;
    const pressure = { type: 'property', name: '压力', identifier: 'pressure', dataType: { type: 'float', min: 0, max: 10, unit: 'MPa' } };
    await api.call('product.defineFunction', { body: { productId, function: pressure } });
    await api.call('product.publish', { body: { id: productId } });
    const location = { lng: 121.47, lat: 31.23, address: 'Shanghai' };
    device = (await api.call('device.create', { body: { sn: 'PUMP-1', name: 'pump 1', productId, location } })).id;
    const at = new Date(Date.now() - 3_600_000).toISOString();
    const raised = manualAlarm('z1', device, 4, at, { ruleName: 'Pressure high', variable: 'pressure', value: 9 });
    await sut.platform.context.store.append('alarm-zulu.z1', [event('AlarmRaised', raised, { tenantId: 'zulu', occurredAt: at })], 'any');
    // Values from before any page opened (a chart loads them on open), the newest 3.5 MPa.
    await sut.platform.timeseries!.insertTelemetry(
      [
        [20, 2],
        [10, 3],
        [1, 3.5],
      ].map(([minutesAgo, value]) => ({
        tenantId: 'zulu',
        deviceId: device,
        productId,
        variable: 'pressure',
        ts: new Date(Date.now() - minutesAgo! * 60_000),
        value: value!,
        text: null,
      })),
    );
    await sut.platform.runner.catchUp();
  }, 300_000);
  afterAll(async () => sut?.stop());

  const operator = async (lang: 'en' | 'zh') => {
    const page = await sut.loggedIn({ lang, account: 'zuluAdmin', password: 'Zulu#pw1', viewport: { width: 1600, height: 1000 } });
    page.on('pageerror', (error) => console.error('page error:', error));
    return page;
  };
  it('builds a screen of three widgets, saves it, reloads it, shares it and opens the link logged out (en)', async () => {
    const page = await operator('en');
    await page.goto(`${sut.base}/operation/bigScreen`);
    // Before any screen of its own, the tenant sees the overview board.
    await expect.poll(() => page.getByTestId('bs-devices').textContent(), wait).toBe('1');
    await page.getByRole('radio', { name: 'My screens' }).click();
    await expect.poll(() => page.getByTestId('screen-empty').count(), wait).toBe(1);
    await page.getByRole('button', { name: 'New screen' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('Pump hall');
    await page.getByRole('button', { name: 'OK' }).click();
    await expect.poll(() => page.getByTestId('screen-designer').count(), wait).toBe(1);

    await page.getByTestId('palette-number').click();
    const inspector = page.getByTestId('screen-inspector');
    await inspector.getByLabel('Title').fill('Pressure');
    await inspector.getByRole('combobox', { name: 'Source' }).click();
    await page.getByRole('option', { name: 'Device variable' }).click();
    await inspector.getByRole('combobox', { name: 'Device' }).click();
    await page.getByRole('option', { name: 'pump 1 (PUMP-1)' }).click();
    await inspector.getByRole('combobox', { name: 'Variable' }).click();
    await page.getByRole('option', { name: '压力 (pressure)' }).click();
    // Drag it two columns right and one row down (a column is 80 px, a row 40 px of the 1920×1080 stage, scaled),
    // once the variable's list has closed (while it is open, it takes the pointer).
    await expect.poll(() => page.getByRole('listbox').count()).toBe(0);
    await expect.poll(() => inspector.textContent()).toContain('压力 (pressure)');
    const stage = (await page.getByTestId('screen-stage').boundingBox())!;
    const scale = stage.width / 1920;
    const card = (await page.getByTestId('widget-number1').boundingBox())!;
    await page.mouse.move(card.x + 30, card.y + 30);
    await page.mouse.down();
    await page.mouse.move(card.x + 30 + 160 * scale, card.y + 30 + 40 * scale, { steps: 5 });
    await page.mouse.up();
    await expect.poll(() => inspector.textContent()).toContain('At 2,1 size 4×3');

    await page.getByTestId('palette-alarmList').click();
    await inspector.getByRole('combobox', { name: 'Source' }).click();
    await page.getByRole('option', { name: 'Alarm query' }).click();
    await page.getByTestId('palette-clock').click();
    await expect.poll(() => page.getByText('Unsaved changes').count()).toBe(1);
    await page.getByTestId('screen-save').click();
    await expect.poll(() => page.getByText('Saved', { exact: true }).count(), wait).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('value-number1').textContent(), wait).toBe('3.5 MPa');
    await page.screenshot({ path: path.join(SHOTS, 'screen-designer-en.png') });

    // Reloaded, the saved layout comes back.
    await page.reload();
    await page.getByRole('radio', { name: 'My screens' }).click();
    await expect.poll(() => page.getByTestId('screen-list').textContent(), wait).toContain('Pump hall');
    await page.getByRole('button', { name: 'View', exact: true }).click();
    await expect.poll(() => page.getByTestId('value-number1').textContent(), wait).toBe('3.5 MPa');
    await expect.poll(() => page.getByTestId('widget-alarmList1').textContent(), wait).toContain('pump 1');
    expect(await page.getByTestId('widget-clock1').count()).toBe(1);
    await page.screenshot({ path: path.join(SHOTS, 'screen-view-en.png') });
    const api = await httpClientAs(sut.base, 'zuluAdmin', 'Zulu#pw1');
    const [saved] = (await api.call('screen.list', {})).rows;
    expect(saved!.widgets.map((w) => [w.id, w.kind, w.x, w.y, w.binding.source])).toEqual([
      ['number1', 'number', 2, 1, 'device'],
      ['alarmList1', 'alarmList', 6, 0, 'alarm'],
      ['clock1', 'clock', 14, 0, 'none'],
    ]);

    // Share it, then open the link in a browser that never logged in.
    await page.getByRole('button', { name: 'Back' }).click();
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    await page.getByTestId('share-create').click();
    await expect.poll(() => page.getByTestId('share-row').count(), wait).toBe(1);
    // The link is shown once, as it is made; the list of links holds none.
    const link = (await page.getByTestId('share-link').textContent())!;
    expect(await page.getByTestId('share-row').textContent()).not.toContain('/share/screen');
    expect(link).toContain('/share/screen?token=');
    // Shared by a user who sees the whole tenant, the link shows every station.
    expect(await page.getByTestId('share-station').textContent()).toBe('All stations');
    await page.screenshot({ path: path.join(SHOTS, 'screen-shares-en.png') });
    const visitor = await (await sut.browser.newContext({ viewport: { width: 1920, height: 1080 } })).newPage();
    await visitor.addInitScript(`localStorage.setItem('lang', 'en')`);
    await visitor.goto(link);
    await expect.poll(() => visitor.getByTestId('value-number1').textContent(), wait).toBe('3.5 MPa');
    expect(visitor.url()).toContain('/share/screen');
    await visitor.screenshot({ path: path.join(SHOTS, 'screen-shared-en.png') });

    // Revoked, the link no longer opens.
    await page.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => page.getByTestId('share-row').textContent(), wait).toContain('Revoked');
    await visitor.reload();
    await expect.poll(() => visitor.getByTestId('shared-invalid').textContent(), wait).toContain('not valid or was revoked');
    await visitor.context().close();
    await page.context().close();
  }, 180_000);

  it('shows the designer, the view and a shared link in Chinese (zh)', async () => {
    const api = await httpClientAs(sut.base, 'zuluAdmin', 'Zulu#pw1');
    const binding = { source: 'device', deviceId: device, variable: 'pressure' } as const;
    const { id } = await api.call('screen.create', {
      body: {
        name: '泵站大屏',
        widgets: [
          { id: 'g', kind: 'gauge', x: 0, y: 0, w: 8, h: 8, title: '压力', binding, options: { min: 0, max: 10 } },
          { id: 'l', kind: 'liquid', x: 8, y: 0, w: 4, h: 8, title: '液位', binding, options: { min: 0, max: 10 } },
          { id: 'p', kind: 'pie', x: 12, y: 0, w: 6, h: 8, title: '告警级别', binding: { source: 'alarm' } },
          { id: 't', kind: 'text', x: 18, y: 0, w: 6, h: 3, title: '', options: { text: '一号泵站' } },
          { id: 'a', kind: 'alarmList', x: 0, y: 8, w: 12, h: 8, title: '告警', binding: { source: 'alarm' } },
          { id: 'v', kind: 'video', x: 12, y: 8, w: 6, h: 8, title: '摄像头' },
          { id: 's', kind: 'switch', x: 18, y: 3, w: 6, h: 5, title: '泵', binding },
          { id: 'm', kind: 'map', x: 0, y: 16, w: 12, h: 10, title: '设备分布', binding: { source: 'map' } },
          { id: 'c', kind: 'line', x: 12, y: 16, w: 12, h: 10, title: '压力曲线', binding },
        ],
      },
    });
    const share = await api.call('screen.share', { body: { id, hours: 2 } });
    const station = (await api.call('group.create', { body: { name: '一号泵站', type: 'site', parentId: null } })).id;
    await api.call('screen.share', { body: { id, hours: 2 }, query: { stationId: station } });
    const page = await operator('zh');
    await page.goto(`${sut.base}/operation/bigScreen`);
    await page.getByRole('radio', { name: '自定义大屏' }).click();
    await expect.poll(() => page.getByTestId('screen-list').textContent(), wait).toContain('泵站大屏');
    await page
      .getByRole('row', { name: /泵站大屏/ })
      .getByRole('button', { name: '设计' })
      .click();
    await expect.poll(() => page.locator('[data-testid=widget-g] canvas').count(), wait).toBe(1);
    await page.getByTestId('widget-g').click();
    await expect.poll(() => page.getByTestId('screen-inspector').textContent()).toContain('仪表盘');
    await page.screenshot({ path: path.join(SHOTS, 'screen-designer-zh.png') });
    // The view: live values, and a switch the operator may turn (its pressure is not zero: it is on).
    await page.getByRole('button', { name: '返回' }).click();
    await page
      .getByRole('row', { name: /泵站大屏/ })
      .getByRole('button', { name: '查看' })
      .click();
    await expect.poll(() => page.getByTestId('switch-s').textContent(), wait).toBe('关闭');
    await expect.poll(() => page.locator('[data-testid=widget-g] canvas').count(), wait).toBe(1);
    // The map places the pump by its coordinates; the line starts from the values before the page opened.
    await expect.poll(() => page.getByTestId('map-m').getAttribute('data-count'), wait).toBe('1');
    await expect.poll(() => page.locator('[data-testid=widget-m] canvas').count(), wait).toBe(1);
    await expect.poll(() => page.locator('[data-testid=widget-c] [data-count]').getAttribute('data-count'), wait).toBe('3');
    await page.screenshot({ path: path.join(SHOTS, 'screen-view-zh.png') });
    // Its share links say which station each shows: the one narrowed to a station names it.
    await page.getByRole('button', { name: '返回' }).click();
    await page
      .getByRole('row', { name: /泵站大屏/ })
      .getByRole('button', { name: '分享' })
      .click();
    await expect.poll(() => page.getByTestId('share-station').allTextContents(), wait).toEqual(['站点：一号泵站', '全部站点']);
    await page.screenshot({ path: path.join(SHOTS, 'screen-shares-zh.png') });
    await page.keyboard.press('Escape');
    const visitor = await (await sut.browser.newContext({ viewport: { width: 1920, height: 1080 } })).newPage();
    await visitor.goto(`${sut.base}/share/screen?token=${encodeURIComponent(share.token)}`);
    await expect.poll(() => visitor.getByTestId('value-l').textContent(), wait).toBe('3.5 MPa');
    await expect.poll(() => visitor.getByTestId('widget-a').textContent(), wait).toContain('pump 1');
    // The gauge and the pie of alarm levels are drawn.
    await expect.poll(() => visitor.locator('[data-testid=widget-g] canvas, [data-testid=widget-p] canvas').count(), wait).toBe(2);
    await expect.poll(() => visitor.getByTestId('map-m').getAttribute('data-count'), wait).toBe('1');
    await expect.poll(() => visitor.locator('[data-testid=widget-c] [data-count]').getAttribute('data-count'), wait).toBe('3');
    await visitor.screenshot({ path: path.join(SHOTS, 'screen-shared-zh.png') });
    // The same link in English: the map's province names follow the visitor's language.
    const english = await (await sut.browser.newContext({ viewport: { width: 1920, height: 1080 } })).newPage();
    await english.addInitScript(`localStorage.setItem('lang', 'en')`);
    await english.goto(`${sut.base}/share/screen?token=${encodeURIComponent(share.token)}`);
    await expect.poll(() => english.getByTestId('map-m').getAttribute('data-count'), wait).toBe('1');
    await expect.poll(() => english.locator('[data-testid=widget-m] canvas').count(), wait).toBe(1);
    await english.screenshot({ path: path.join(SHOTS, 'screen-shared-map-en.png') });
    await english.context().close();
    // Read-only: a shared link turns no switch.
    expect(await visitor.getByTestId('widget-s').textContent()).toContain('开');
    expect(await visitor.getByTestId('switch-s').count()).toBe(0);
    // An altered token is refused, in the visitor's language.
    await visitor.goto(`${sut.base}/share/screen?token=${encodeURIComponent(share.token.slice(0, -3))}AAA`);
    await expect.poll(() => visitor.getByTestId('shared-invalid').textContent(), wait).toContain('无效');
    await visitor.context().close();
    await page.context().close();
  }, 180_000);
});
