import { execSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { loadConfig } from '@iot/infra/config.ts';
import { seedDemoTenant, startPlatform, type Platform, type SeedTenant } from '@iot/infra/platform.ts';
import { freePort } from './free-port.ts';
import { createTestDatabase } from './postgres.ts';

export const CHROMIUM = '/usr/bin/chromium';
/** The built app under test: web/dist, or E2E_WEB_DIST (a build of one's own, so that parallel work does not share one). */
export const WEB_DIST = path.resolve(process.env.E2E_WEB_DIST ?? 'web/dist');
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'];

/**
 * The platform serving the built web app on its own database, a tenant seeded, and headless Chromium: what
 * every browser test starts from. No Chromium is a failure, never a skip (`npm test` installs it first).
 */
export async function startBrowserPlatform(tenant: SeedTenant, env: Record<string, string> = {}, options: { demo?: boolean } = {}) {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run \`bash .ci/install-engines.sh\` (\`npm test\` does)`);
  // The app under test is the built one the server serves; build it when this checkout has none.
  if (!existsSync(path.join(WEB_DIST, 'index.html'))) execSync(`npm run build -w web -- --outDir ${WEB_DIST}`, { stdio: 'inherit' });
  const db = await createTestDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'e2e-'));
  const platform: Platform = await startPlatform(
    loadConfig({
      ...process.env,
      ADMIN_PASSWORD: 'admin123',
      DATA_DIR: dataDir,
      DATABASE_URL: db.url,
      MQTT_PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
      ...env,
    }),
    // `demo`: the demo tenant of a fresh `npm start` beside `tenant` (its users, fleet, alarms and simulator).
    { port: 0, staticDir: WEB_DIST, seedDemo: options.demo ?? false },
  );
  await seedDemoTenant(platform.context, tenant);
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  const base = platform.url!;
  return {
    platform,
    browser,
    base,
    dataDir,
    /** A new browser context logged in as `account`, in `lang`, on `then` once the login page sent it there. */
    async loggedIn(options: {
      lang: 'zh' | 'en';
      account: string;
      password: string;
      then?: string;
      viewport?: { width: number; height: number };
    }): Promise<Page> {
      const page = await (
        await browser.newContext({ viewport: options.viewport ?? { width: 1440, height: 900 }, acceptDownloads: true })
      ).newPage();
      await page.addInitScript(`localStorage.setItem('lang', '${options.lang}')`);
      await page.goto(`${base}${options.then ?? '/login'}`);
      await page.waitForURL('**/login**');
      await page.fill('input[name=account]', options.account);
      await page.fill('input[name=password]', options.password);
      await page.click('[data-testid=agreement]');
      await page.click('button[type=submit]');
      await page.waitForURL(`**${options.then ?? '/index'}`);
      return page;
    },
    async stop() {
      await browser.close();
      await platform.stop();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
export type BrowserPlatform = Awaited<ReturnType<typeof startBrowserPlatform>>;
