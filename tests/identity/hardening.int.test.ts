import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvCell } from '@iot/query/oplog/handlers.ts';
import { startTestPlatform, TEST_ADMIN_PASSWORD, type TestPlatform } from '../harness/platform.ts';

/** Issue 9 inside auth, apps, settings and the operation log: what an attacker sends is refused as the caller's mistake. */
let sut: TestPlatform;
let admin: string;
const data = (r: { status: number; body: string }) => {
  expect(r.status, r.body).toBe(200);
  return JSON.parse(r.body).data;
};

/** A real 1x1 RGBA PNG. */
const onePixelPng = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'hard', name: 'hardCo', adminUsername: 'hardAdmin', adminPassword: 'Hard#pw1' });
  admin = await sut.login('hardAdmin', 'Hard#pw1');
});
afterAll(async () => sut?.stop());

describe('login and logout', () => {
  it('sets the token cookie on login and clears it on logout', async () => {
    const login = await sut.call('auth.login', { body: { account: 'hardAdmin', password: 'Hard#pw1', agreement: true } });
    const token = data(login).token as string;
    expect(String(login.headers['set-cookie'])).toMatch(new RegExp(`^token=${token};.*HttpOnly`, 'i'));
    expect(data(await sut.call('auth.currentUser', { token })).permissions).toEqual(['*']);
    const logout = await sut.call('auth.logout', { token });
    expect(logout.status).toBe(200);
    expect(String(logout.headers['set-cookie'])).toMatch(/^token=;/);
    expect((await sut.call('auth.currentUser', { token })).status).toBe(401);
  });
});

describe('the logo', () => {
  const upload = (body: Buffer, contentType = 'image/png') =>
    sut.call('settings.uploadLogo', { token: admin, headers: { 'content-type': contentType }, body });

  it('refuses an HTML file sent as image/png, and a file with the PNG signature but no IHDR chunk', async () => {
    const html = await upload(Buffer.from('<!DOCTYPE html><html><script>alert(document.cookie)</script></html>'));
    expect(html.status).toBe(400);
    expect(html.json!.data.error).toBe('LOGO_NOT_PNG');
    const fake = await upload(Buffer.concat([onePixelPng.subarray(0, 8), Buffer.from('<html><script>alert(1)</script></html>')]));
    expect(fake.json!.data.error).toBe('LOGO_NOT_PNG');
    // Nothing of either was stored.
    expect((await sut.platform.context.db.query('select 1 from settings_logos')).rowCount).toBe(0);
  });

  it('takes a PNG, records its dimensions from IHDR, and serves it as image/png that the browser may not sniff', async () => {
    const { logo } = data(await upload(onePixelPng));
    const events = await sut.platform.context.store.readStream('settings-hard.hard');
    expect(events.at(-1)).toMatchObject({ type: 'SystemLogoChanged', data: { sha256: logo, width: 1, height: 1 } });
    const served = await sut.call('settings.userLogo', { token: admin });
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.headers['etag']).toBe(`"${logo}"`);
    expect(served.headers['cache-control']).toBe('private, max-age=300');
    expect(served.rawPayload.equals(onePixelPng)).toBe(true);
  });
});

describe('lists', () => {
  it('sort only by the names a list allows: sort=__proto__ answers 400', async () => {
    for (const name of ['app.list', 'oplog.list', 'oplog.export'] as const) {
      const r = await sut.call(name, { token: admin, query: { sort: '__proto__' } });
      expect(r.status, name).toBe(400);
      expect(r.json!.data.error).toBe('VALIDATION');
    }
    expect((await sut.call('app.list', { token: admin, query: { sort: 'name', order: 'asc' } })).status).toBe(200);
  });
});

describe('the operation log', () => {
  it('refuses a time-zone offset beyond ±15:59 with 400, takes one within', async () => {
    for (const from of ['2024-01-01T00:00:00+16:00', '2024-01-01T00:00:00-23:59', '0000-01-01T00:00:00Z']) {
      const r = await sut.call('oplog.list', { token: admin, query: { from } });
      expect(r.status, from).toBe(400);
      expect(r.json!.data.error).toBe('VALIDATION');
    }
    expect((await sut.call('oplog.list', { token: admin, query: { to: '2024-01-01T00:00:00+16:30' } })).status).toBe(400);
    for (const from of ['2024-01-01T00:00:00+15:59', '2024-01-01T00:00:00-15:59', '2024-01-01T00:00:00Z'])
      expect((await sut.call('oplog.list', { token: admin, query: { from } })).status, from).toBe(200);
  });

  it('exports cells that a spreadsheet would run as formulas as text, with a leading quote', async () => {
    const names = ['=HYPERLINK("http://evil.example","x")', '+1+2', '-3+4', '@SUM(1)'];
    for (const systemName of names) data(await sut.call('settings.update', { token: admin, body: { systemName } }));
    await sut.platform.runner.catchUp();
    const csv = await sut.call('oplog.export', { token: admin, query: { eventType: 'SystemNameChanged' } });
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="operation-log-\d{4}-\d{2}-\d{2}\.csv"$/);
    const cells = csv.body.split(/\r?\n/).flatMap((line) => line.split(','));
    expect(cells).toEqual(expect.arrayContaining([`"'=HYPERLINK(""http://evil.example""`, `'+1+2`, `'-3+4`, `'@SUM(1)`]));
    expect(cells.filter((cell) => /^"?[=+\-@]/.test(cell))).toEqual([]);
    // The list format of the same route answers the same rows as JSON, unescaped.
    const rows = data(await sut.call('oplog.list', { token: admin, query: { eventType: 'SystemNameChanged' } })).rows;
    expect(rows.map((r: { targetName: string }) => r.targetName)).toEqual(expect.arrayContaining(names));
    // Tabs and carriage returns that some spreadsheets skip before a formula are quoted too.
    expect([csvCell('\t=1'), csvCell('\r=1'), csvCell('plain'), csvCell(42)]).toEqual(["'\t=1", "'\r=1", 'plain', 42]);
  });
});

describe('menus come only from permissions held', () => {
  const ids = (nodes: Array<{ id: string; children?: unknown[] }>): string[] =>
    nodes.flatMap((n) => [n.id, ...ids((n.children ?? []) as Array<{ id: string; children?: unknown[] }>)]);

  it("shows the tenant audit to the system administrator and never in a tenant's menu", async () => {
    const tenantMenus = ids(data(await sut.call('menu.tree', { token: admin })));
    expect(tenantMenus).toContain('system.user');
    expect(tenantMenus.filter((id) => id.startsWith('system.tenant'))).toEqual([]);
    const system = await sut.login('admin', TEST_ADMIN_PASSWORD);
    expect(ids(data(await sut.call('menu.tree', { token: system })))).toContain('system.tenant');
  });
});

describe('the tenant header of development builds (spec §7)', () => {
  it('is ignored in production mode, even from the system administrator', async () => {
    const system = await sut.login('admin', TEST_ADMIN_PASSWORD);
    const users = async (headers: Record<string, string>) =>
      (data(await sut.call('user.list', { token: system, headers, query: { pageSize: '100' } })).rows as { username: string }[]).map(
        (u) => u.username,
      );
    expect(await users({ tenant: 'hard' })).not.toContain('hardAdmin');
    expect(await users({ tenant: 'hard' })).toEqual(await users({}));
    expect((await sut.call('tenant.list', { token: system, headers: { tenant: 'hard' } })).status).toBe(200);
  });
});
