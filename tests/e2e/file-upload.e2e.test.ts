import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';
import { httpClientAs } from '../harness/http-client.ts';

/**
 * File management in a real browser (issue 21): an upload with tus-js-client whose page is reloaded midway shows
 * its progress from the server after the reload, continues when the same file is chosen again, and lands with the
 * SHA-256 of the whole; zh and en screenshots of the screen are kept for a look.
 */
describe('file upload in a real browser', () => {
  let sut: BrowserPlatform;
  let dir: string;
  const shots = process.env.E2E_SHOTS_DIR;
  const content = randomBytes(12 * 1024 * 1024);
  const sha256 = createHash('sha256').update(content).digest('hex');

  beforeAll(async () => {
    sut = await startBrowserPlatform({ id: 'fox', name: 'foxCo', adminUsername: 'foxAdmin', adminPassword: 'Fox#pw12' });
    dir = mkdtempSync(path.join(tmpdir(), 'e2e-files-'));
    writeFileSync(path.join(dir, 'gateway-fw-3.0.bin'), content);
  }, 180_000);
  afterAll(async () => {
    await sut?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const open = (lang: 'zh' | 'en') => sut.loggedIn({ lang, account: 'foxAdmin', password: 'Fox#pw12', then: '/system/file' });
  const choose = async (page: Page) => {
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('dialog').getByRole('button', { name: 'Choose file' }).click();
    await (await chooser).setFiles(path.join(dir, 'gateway-fw-3.0.bin'));
  };

  it('resumes an upload cut by a page reload and records the SHA-256 of the whole', async () => {
    const page = await open('en');
    await page.getByRole('button', { name: 'Upload file' }).click();
    await choose(page);
    await page.getByRole('dialog').locator('input[name=version]').fill('3.0.0');
    // The first 5 MiB piece goes through; the next ones (and the client's retries) lose their connection.
    let patches = 0;
    await page.route('**/api/iot/file/upload/*', async (route) => {
      if (route.request().method() === 'PATCH' && ++patches > 1) return route.abort('connectionreset');
      await route.continue();
    });
    await page.getByRole('dialog').getByRole('button', { name: 'Upload', exact: true }).click();
    if (shots) await page.screenshot({ path: path.join(shots, 'file-uploading-en.png') });
    await expect.poll(() => patches, { timeout: 60_000 }).toBeGreaterThan(1);
    await page.reload();
    await page.unrouteAll({ behavior: 'ignoreErrors' });

    const unfinished = page.getByRole('region', { name: 'Unfinished uploads' });
    await expect.poll(() => unfinished.textContent(), { timeout: 30_000 }).toContain('41% uploaded');
    if (shots) await page.screenshot({ path: path.join(shots, 'file-unfinished-en.png') });
    await unfinished.getByRole('button', { name: 'Resume' }).click();
    await choose(page);
    await page.getByRole('dialog').getByRole('button', { name: 'Upload', exact: true }).click();

    const row = page.getByRole('row').filter({ hasText: 'gateway-fw-3.0.bin' });
    await expect.poll(() => row.count(), { timeout: 60_000 }).toBe(1);
    expect(await row.textContent()).toContain('12.00');
    await expect.poll(() => unfinished.count()).toBe(0);
    const api = await httpClientAs(sut.base, 'foxAdmin', 'Fox#pw12');
    const listed = await api.call('file.list', { query: {} });
    expect(listed.rows.map((r) => [r.name, r.sha256, r.version])).toEqual([['gateway-fw-3.0.bin', sha256, '3.0.0']]);
    if (shots) await page.screenshot({ path: path.join(shots, 'file-list-en.png') });
    await page.context().close();

    const zh = await open('zh');
    await zh.getByRole('row').filter({ hasText: 'gateway-fw-3.0.bin' }).waitFor();
    expect(await zh.getByRole('row').filter({ hasText: 'gateway-fw-3.0.bin' }).textContent()).toContain('升级文件');
    if (shots) await zh.screenshot({ path: path.join(shots, 'file-list-zh.png') });
    await zh.context().close();
  }, 240_000);
});
