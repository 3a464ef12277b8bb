import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { event } from '../fixtures/events.ts';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';
import { httpClientAs } from '../harness/http-client.ts';

/**
 * The statistics screens and the home dashboard as an operator opens them (issue 20), in zh and en: a garage
 * with two devices, one alarm active and one cleared within the last days. Screenshots go to SHOTS_DIR.
 */
const SHOTS = process.env.SHOTS_DIR ?? path.join(tmpdir(), 'shots-analysis');

describe('statistics screens in a real browser', () => {
  let sut: BrowserPlatform;
  let base: string;

  beforeAll(async () => {
    sut = await startBrowserPlatform({ id: 'yankee', name: 'yankeeCo', adminUsername: 'yankeeAdmin', adminPassword: 'Yankee#pw1' });
    base = sut.base;
    mkdirSync(SHOTS, { recursive: true });
    const api = await httpClientAs(base, 'yankeeAdmin', 'Yankee#pw1');
    const east = (await api.call('group.create', { body: { name: 'East', type: 'institution', parentId: null } })).id;
    const garage = (await api.call('group.create', { body: { name: 'Garage North', type: 'garage', parentId: east } })).id;
    await api.call('group.create', { body: { name: 'Project Bridge', type: 'project', parentId: east } });
    const productId = (await api.call('product.create', { body: { name: 'Barrier', code: 'BAR', type: 'direct' } })).id;
    const devices = [];
    for (const sn of ['GATE-1', 'GATE-2'])
      devices.push((await api.call('device.create', { body: { sn, name: `gate ${sn.slice(-1)}`, productId, groupId: garage } })).id);
    await sut.platform.runner.catchUp();
    const hour = 3_600_000;
    const now = Date.now();
    const raise = async (id: string, deviceId: string, level: number, raisedAt: number, clearedAt: number | null) => {
      const meta = { tenantId: 'yankee', occurredAt: new Date(raisedAt).toISOString() };
      const data = {
        alarmId: id,
        ruleId: null,
        ruleName: 'Barrier stuck',
        deviceId,
        variable: 'state',
        type: 'device',
        category: null,
        mode: null,
        level,
        trigger: 'manual',
        threshold: null,
        value: 1,
        text: null,
        at: meta.occurredAt,
        faultFlag: true,
        cause: null,
        suggestion: null,
        push: 'firstTime',
        pushIntervalMin: null,
      };
      const events = [event('AlarmRaised', data, meta)];
      if (clearedAt) {
        const at = new Date(clearedAt).toISOString();
        events.push(event('AlarmCleared', { alarmId: id, value: 0, at, auto: true, note: null }, { ...meta, occurredAt: at }));
      }
      await sut.platform.context.store.append(`alarm-yankee.${id}`, events, 'any');
    };
    await raise('y1', devices[0]!, 4, now - 50 * hour, now - 48 * hour);
    await raise('y2', devices[1]!, 2, now - 2 * hour, null);
    await sut.platform.runner.catchUp();
  }, 240_000);
  afterAll(async () => sut?.stop());

  for (const lang of ['en', 'zh'] as const) {
    it(`shows the garage fault statistics, the garage list and the dashboard (${lang})`, async () => {
      const page = await sut.loggedIn({ lang, account: 'yankeeAdmin', password: 'Yankee#pw1' });
      await expect.poll(() => page.getByTestId('dash-devices').textContent(), { timeout: 15_000 }).toBe('2');
      expect(await page.getByTestId('dash-alarms').textContent()).toBe('1');
      await expect.poll(() => page.locator('.analysis-chart canvas').count()).toBeGreaterThan(0);
      await page.screenshot({ path: path.join(SHOTS, `home-${lang}.png`), fullPage: true });

      await page.goto(`${base}/analysis/garageFault`);
      await expect.poll(() => page.getByTestId('sum-alarms').textContent(), { timeout: 15_000 }).toBe('2');
      expect(await page.getByTestId('sum-active').textContent()).toBe('1');
      expect(await page.getByTestId('sum-mttc').textContent()).toBe(lang === 'zh' ? '2小时0分' : '2h 0m');
      await expect.poll(() => page.getByTestId('fault-groups').textContent()).toContain('Garage North');
      await expect.poll(() => page.locator('.analysis-chart canvas').count()).toBe(4);
      await page.screenshot({ path: path.join(SHOTS, `garage-fault-${lang}.png`), fullPage: true });

      await page.goto(`${base}/analysis/garage`);
      const row = page.getByRole('row').filter({ hasText: 'Garage North' });
      await expect.poll(() => row.textContent(), { timeout: 15_000 }).toContain('0%');
      await page.screenshot({ path: path.join(SHOTS, `garage-${lang}.png`), fullPage: true });
      await page.context().close();
    });
  }

  it('shows an empty state, drills into a region, and exports the group table as CSV', async () => {
    const page = await sut.loggedIn({ lang: 'en', account: 'yankeeAdmin', password: 'Yankee#pw1' });
    await page.goto(`${base}/analysis/projectFault`);
    await expect.poll(() => page.getByTestId('fault-empty').count(), { timeout: 15_000 }).toBe(1);
    await page.goto(`${base}/analysis/regionFault`);
    await expect.poll(() => page.getByTestId('fault-groups').textContent(), { timeout: 15_000 }).toContain('East');
    await page.getByTestId('fault-groups').getByRole('button', { name: 'Drill down' }).click();
    await expect.poll(() => page.getByTestId('fault-groups').textContent()).toContain('Garage North');
    await page.screenshot({ path: path.join(SHOTS, 'region-fault-en.png'), fullPage: true });
    await page.getByRole('button', { name: 'Export' }).click();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('menuitem', { name: 'Export group statistics (CSV)' }).click(),
    ]);
    const text = readFileSync((await download.path())!, 'utf8');
    expect(text).toContain('Group,Group type,Alarms');
    expect(text).toContain('Garage North,garage,2');
    for (const screen of ['business', 'nationalFault', 'project']) {
      await page.goto(`${base}/analysis/${screen}`);
      await expect.poll(() => page.locator('main').textContent(), { timeout: 15_000 }).not.toContain('later release');
      await page.screenshot({ path: path.join(SHOTS, `${screen}-en.png`), fullPage: true });
    }
    await page.context().close();
  });
});
