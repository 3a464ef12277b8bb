import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/** The built web app: files from disk on each request, client routes get index.html, missing files 404. */
describe('serving the web app', () => {
  let t: TestPlatform;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'dc-static-'));
    await mkdir(path.join(dir, 'assets'));
    await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>app</title>');
    await writeFile(path.join(dir, 'assets', 'old.js'), 'old()');
    t = await startTestPlatform({}, { staticDir: dir });
  });
  afterAll(async () => {
    await t?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves index.html for the root and for client routes', async () => {
    for (const url of ['/', '/system/user', '/login?redirect=%2Findex']) {
      const page = await t.platform.app!.inject({ method: 'GET', url });
      expect(page.statusCode, url + page.body).toBe(200);
      expect(page.body).toContain('<title>app</title>');
    }
  });

  it('serves a file built after the start, and answers 404 for a missing one', async () => {
    await writeFile(path.join(dir, 'assets', 'new.js'), 'fresh()');
    const fresh = await t.platform.app!.inject({ method: 'GET', url: '/assets/new.js' });
    expect(fresh.statusCode).toBe(200);
    expect(fresh.body).toBe('fresh()');
    expect((await t.platform.app!.inject({ method: 'GET', url: '/assets/gone.js' })).statusCode).toBe(404);
  });

  it('keeps unknown API paths in the envelope', async () => {
    const missing = await t.platform.app!.inject({ method: 'GET', url: '/api/iot/nothing' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().data.error).toBe('NOT_FOUND');
  });
});
