import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';
import { httpClientAs } from '../harness/http-client.ts';
import { seedChiller } from './chiller.ts';

/**
 * Fault alarms as an operator uses them (issue 12): a rule made in the settings editor, faults entered by
 * hand (the incomplete row confirmed), an alarm processed with a note, and the notification in the bell.
 */
describe('fault alarms in a real browser', () => {
  let sut: BrowserPlatform;
  let base: string;

  beforeAll(async () => {
    // The tenant's SMTP URL names loopback: the operator allows it (issue 24).
    sut = await startBrowserPlatform(
      { id: 'xray', name: 'xrayCo', adminUsername: 'xrayAdmin', adminPassword: 'Xray#pw1' },
      { OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32' },
    );
    base = sut.base;
    // A product with a temperature property, one device, a contact, a template and an in-app configuration, over the API.
    await seedChiller(sut, await httpClientAs(base, 'xrayAdmin', 'Xray#pw1'), {
      contact: { name: 'Li Lei', email: 'lilei@example.com' },
      template: 'inbox',
      config: 'inbox',
      sendWays: ['inApp'],
    });
  }, 120_000);
  afterAll(async () => sut?.stop());

  const operator = (lang: 'en' | 'zh' = 'en') => sut.loggedIn({ lang, account: 'xrayAdmin', password: 'Xray#pw1' });
  const dialog = (page: Page) => page.getByRole('dialog').last();
  const pick = async (page: Page, name: string, option: string | RegExp) => {
    await dialog(page).getByRole('combobox', { name }).click();
    await page.getByRole('option', { name: option }).first().click();
  };

  it('creates an alarm rule in the settings editor, refusing it without a threshold first', async () => {
    const page = await operator();
    await page.goto(`${base}/alarm/settings`);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await dialog(page).locator('input[name=name]').fill('Too warm');
    await pick(page, 'productId', /Chiller/);
    await pick(page, 'variable', /temperature/);
    await pick(page, 'level', '4 Major');
    await dialog(page).getByRole('button', { name: 'Save' }).click();
    // The one field in error is the threshold.
    await expect.poll(() => dialog(page).getByRole('alert').count()).toBe(1);
    expect(await dialog(page).locator('label:has(input[name=threshold]) [role=alert]').textContent()).toBe('This field is required');
    await dialog(page).locator('input[name=threshold]').fill('30');
    await dialog(page).getByRole('button', { name: 'Save' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Too warm' });
    await expect.poll(() => row.textContent()).toContain('> 30');
    expect(await row.textContent()).toContain('4 Major');
    await page.context().close();
  });

  it('enters faults by hand, asks before sending an incomplete row, and processes one with a note', async () => {
    const page = await operator();
    await page.goto(`${base}/alarm/monitor`);
    await page.getByRole('button', { name: 'Fault entry' }).click();
    await pick(page, 'deviceId-0', /chiller one/);
    await dialog(page).locator('input[name=variable-0]').fill('temperature');
    await dialog(page).getByRole('button', { name: 'Add a row' }).click();
    await pick(page, 'deviceId-1', /chiller one/);
    await dialog(page).getByRole('button', { name: 'Save' }).click();
    // Row two has no variable: the operator is asked, and goes on.
    await expect.poll(() => page.getByText('The information is incomplete. Continue submitting?').count()).toBe(1);
    await page.getByRole('button', { name: 'OK' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'chiller one' }).count()).toBe(2);
    await page.getByRole('row').filter({ hasText: 'temperature' }).getByRole('checkbox').click();
    await page.getByRole('button', { name: 'Process', exact: true }).click();
    await dialog(page).locator('textarea[name=note]').fill('reset the compressor');
    await dialog(page).getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'reset the compressor' }).count()).toBe(1);
    // The notification configuration filed both alarms in the in-app inbox: the bell counts them.
    await page.reload();
    await expect.poll(() => page.getByTestId('bell-count').textContent(), { timeout: 10_000 }).toBe('2');
    await page.getByTestId('bell').click();
    await expect.poll(() => page.getByText('Alarm on chiller one').count()).toBe(2);
    await page.context().close();
  });

  it("opens an alarm's detail with its timeline from the monitoring list, and from the bell", async () => {
    const page = await operator();
    await page.goto(`${base}/alarm/monitor`);
    const row = page.getByRole('row').filter({ hasText: 'reset the compressor' });
    await row.getByRole('button', { name: 'Details' }).click();
    const detail = page.getByTestId('alarm-detail');
    await expect.poll(() => detail.locator('[data-type]').count()).toBe(2);
    expect(await detail.locator('[data-type]').evaluateAll((steps) => steps.map((s) => s.getAttribute('data-type')))).toEqual([
      'AlarmRaised',
      'AlarmProcessed',
    ]);
    expect(await detail.locator('[data-type=AlarmProcessed]').textContent()).toMatch(/Processed.*xrayAdmin.*note: reset the compressor/);
    await detail.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => page.getByTestId('alarm-detail').count()).toBe(0);
    // A message in the bell opens the alarm it is about.
    await page.getByTestId('bell').click();
    await page.getByText('Alarm on chiller one').first().click();
    await expect.poll(() => page.getByTestId('alarm-timeline').locator('[data-type=AlarmRaised]').count()).toBe(1);
    expect(page.url()).toContain('/alarm/monitor?alarm=');
    await page.context().close();
  });

  it("edits the tenant's notification settings: its own SMTP server and quiet hours, the password never shown back", async () => {
    const page = await operator();
    await page.goto(`${base}/alarm/notifySettings`);
    await page.getByTestId('edit-notify-settings').click();
    await dialog(page).locator('input[name=smtpUrl]').fill('smtp://xray:XraySmtpPw9@127.0.0.1:2525');
    await dialog(page).locator('input[name=smtpFrom]').fill('alarms@xray.example');
    await dialog(page).locator('input[name=contactPerMinute]').fill('abc');
    await dialog(page)
      .getByRole('checkbox', { name: /Quiet hours/ })
      .click();
    await dialog(page).getByRole('button', { name: 'Save' }).click();
    // A cap that is not a number is refused in place.
    await expect.poll(() => dialog(page).locator('label:has(input[name=contactPerMinute]) [role=alert]').count()).toBe(1);
    await dialog(page).locator('input[name=contactPerMinute]').fill('5');
    await dialog(page).getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    const email = page.locator('[data-kind=email]');
    await expect.poll(() => email.textContent()).toContain("This tenant's settings");
    expect(await email.textContent()).toContain('127.0.0.1:2525');
    expect(await page.getByTestId('quiet-hours').textContent()).toContain('22:00–07:00 (Asia/Shanghai)');
    expect(await page.content()).not.toContain('XraySmtpPw9');
    // Opened again, the password field is empty: stored, never shown.
    await page.getByTestId('edit-notify-settings').click();
    expect(await dialog(page).locator('input[name=smtpUrl]').inputValue()).toBe('');
    expect(await dialog(page).textContent()).toContain('Stored (never shown)');
    expect(await dialog(page).locator('input[name=contactPerMinute]').inputValue()).toBe('5');
    await page.context().close();
  });

  it('shows the alarm screens in Chinese', async () => {
    const page = await operator('zh');
    await page.goto(`${base}/alarm/monitor`);
    await expect.poll(() => page.getByRole('button', { name: '故障录入' }).count()).toBe(1);
    expect(await page.getByText('当前告警').count()).toBeGreaterThan(0);
    await page.goto(`${base}/alarm/notifyRecords`);
    await expect.poll(() => page.getByRole('cell', { name: '站内信' }).count(), { timeout: 10_000 }).toBe(2);
    await page.context().close();
  });
});
