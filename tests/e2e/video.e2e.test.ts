import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startBrowserPlatform, type BrowserPlatform } from '../harness/browser.ts';

/**
 * The video wall as an operator uses it (issue 21): cameras added through the screen, their HLS playlists fetched by
 * the browser from a gateway (a local HTTP server here), a stream that fails shown in its error state, in en and zh.
 */
const wait = { timeout: 20_000 };
/** A one-segment VOD playlist, as an RTSP-to-HLS gateway would serve it. */
const PLAYLIST = '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:2.0,\nseg0.ts\n#EXT-X-ENDLIST\n';

describe('video wall in a real browser', () => {
  let sut: BrowserPlatform;
  let gateway: Server;
  let gatewayUrl: string;
  const fetched: string[] = [];

  beforeAll(async () => {
    gateway = createServer((request, response) => {
      fetched.push(request.url ?? '');
      response.setHeader('access-control-allow-origin', '*');
      if (request.url === '/live/gate.m3u8') {
        response.writeHead(200, { 'content-type': 'application/vnd.apple.mpegurl' });
        response.end(PLAYLIST);
      } else if (request.url === '/live/seg0.ts') {
        response.writeHead(200, { 'content-type': 'video/mp2t' });
        response.end(Buffer.alloc(188 * 4, 0xff));
      } else {
        response.writeHead(404);
        response.end();
      }
    });
    await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
    gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
    sut = await startBrowserPlatform({ id: 'xray', name: 'xrayCo', adminUsername: 'xrayAdmin', adminPassword: 'Xray#pw1' });
    await sut.platform.runner.catchUp();
  }, 300_000);
  afterAll(async () => {
    await sut?.stop();
    await new Promise<void>((resolve) => gateway?.close(() => resolve()));
  });

  const operator = (lang: 'en' | 'zh') => sut.loggedIn({ lang, account: 'xrayAdmin', password: 'Xray#pw1' });
  const dialog = (page: Page) => page.getByRole('dialog').last();

  it('shows the empty wall, adds two cameras, fetches the playlist the gateway serves and marks the stream it lacks', async () => {
    const page = await operator('en');
    await page.goto(`${sut.base}/operation/video`);
    await expect.poll(() => page.getByTestId('video-empty').textContent(), wait).toContain('No cameras yet');

    await page.getByRole('radio', { name: 'Cameras' }).click();
    for (const [name, path] of [
      ['North gate', '/live/gate.m3u8'],
      ['Boiler room', '/live/missing.m3u8'],
    ] as const) {
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await dialog(page).locator('input[name=name]').fill(name);
      await dialog(page).locator('input[name=streamUrl]').fill(`${gatewayUrl}${path}`);
      await dialog(page).locator('input[name=location]').fill('Site A');
      await dialog(page).getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => page.getByRole('row').filter({ hasText: name }).count(), wait).toBe(1);
    }

    await page.getByRole('radio', { name: 'Video wall' }).click();
    const tiles = page.getByTestId('video-tile');
    await expect.poll(() => tiles.count(), wait).toBe(2);
    // The browser asked the gateway for the playlist (and its segment), as hls.js does.
    await expect.poll(() => fetched.includes('/live/gate.m3u8'), wait).toBe(true);
    const broken = tiles.filter({ hasText: 'Boiler room' });
    await expect.poll(() => broken.getAttribute('data-status'), wait).toBe('error');
    expect(await broken.textContent()).toContain('The stream cannot be played');
    expect(await broken.textContent()).toContain('Signal lost');
    expect(await tiles.filter({ hasText: 'North gate · Site A' }).count()).toBe(1);

    await page.getByRole('radio', { name: 'Single view' }).click();
    await expect.poll(() => tiles.count(), wait).toBe(1);
    expect(await page.getByText('Page 1 of 2').count()).toBe(1);
    await page.context().close();
  });

  it('speaks Chinese', async () => {
    const page = await operator('zh');
    await page.goto(`${sut.base}/operation/video`);
    const tiles = page.getByTestId('video-tile');
    await expect.poll(() => tiles.count(), wait).toBe(2);
    await expect.poll(() => tiles.filter({ hasText: 'Boiler room' }).textContent(), wait).toContain('信号中断');
    expect(await page.getByRole('radio', { name: '四画面' }).count()).toBe(1);
    await page.context().close();
  });
});
