import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, TEST_ADMIN_PASSWORD, type TestPlatform } from '../harness/platform.ts';

/** What the shell shows before and after login: the platform's name, menu titles in the caller's language. */
describe('names the shell shows', () => {
  let t: TestPlatform;
  let admin: string;
  beforeAll(async () => {
    t = await startTestPlatform();
    admin = await t.login('admin', TEST_ADMIN_PASSWORD);
  });
  afterAll(async () => t?.stop());

  it('gives the platform’s system name to the login page without a login', async () => {
    expect((await t.api('settings.update', { token: admin, body: { systemName: '智慧配电云' } })).status).toBe(200);
    await t.platform.runner.catchUp();
    const open = await t.api('settings.public');
    expect(open.status).toBe(200);
    expect(open.body.data.systemName).toBe('智慧配电云');
    expect((await t.api('settings.publicLogo')).status).toBe(404);
  });

  it('keeps an administrator’s new name of a built-in menu in every language and flags it renamed', async () => {
    const menus = (await t.api('menu.list', { token: admin, headers: { lang: 'en' } })).body.data;
    const flat = (nodes: any[]): any[] => nodes.flatMap((n) => [n, ...flat(n.children ?? [])]);
    const users = flat(menus).find((m) => m.id === 'system.user');
    expect(users).toMatchObject({ title: 'Users', name: '用户管理', renamed: false });
    const { id, type, routerName, icon, permission, path, component, sort, parentId } = users;
    const body = { id, type, name: '账号管理', routerName, icon, permission, path, component, sort, parentId };
    expect((await t.api('menu.update', { token: admin, body })).status).toBe(200);
    await t.platform.runner.catchUp();
    const after = flat((await t.api('menu.list', { token: admin, headers: { lang: 'en' } })).body.data);
    expect(after.find((m) => m.id === 'system.user')).toMatchObject({ title: '账号管理', renamed: true });
  });
});
