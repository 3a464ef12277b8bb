import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinMenus } from '@iot/contracts/menu/catalogue.ts';
import { builtinRoleId } from '@iot/command/role/builtin.ts';
import { tenantAdminId } from '@iot/command/tenant/handlers.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { uniquePhone } from '../harness/phone.ts';

const menusOf = (...permissions: string[]) => permissions.map((p) => builtinMenus.find((m) => m.permission === p)!.id);

/** Issue 9 (high): nobody grants a role beyond what they hold, nor acts on a user who holds more. */
describe('privilege escalation', () => {
  let sut: TestPlatform;
  let admin: string;
  let editor: string;
  let editorId: string;
  let peerId: string;
  const adminRole = builtinRoleId('esc', 'tenantAdmin');

  const user = (username: string, roleIds: string[]) => ({
    username,
    sex: 'male',
    email: `${username}@esc.test`,
    phone: uniquePhone(),
    roleIds,
    status: 'enabled',
    password: 'Esc#pw1234',
  });

  beforeAll(async () => {
    sut = await startTestPlatform();
    await sut.seedTenant({ id: 'esc', name: 'escCo', adminUsername: 'escCo', adminPassword: 'Esc#admin1' });
    admin = await sut.login('escCo', 'Esc#admin1');
    const role = async (name: string, ...permissions: string[]) =>
      (await sut.api('role.create', { token: admin, body: { name, remark: null, menuIds: menusOf(...permissions) } })).body.data.id;
    const editors = await role('editors', 'system:user:list', 'system:user:add', 'system:user:edit', 'system:user:resetPwd');
    const viewers = await role('viewers', 'system:user:list');
    editorId = (await sut.api('user.create', { token: admin, body: user('editor1', [editors]) })).body.data.id;
    peerId = (await sut.api('user.create', { token: admin, body: user('peer1', [viewers]) })).body.data.id;
    editor = await sut.login('editor1', 'Esc#pw1234');
  });
  afterAll(async () => sut?.stop());

  it('refuses a user who gives themselves the tenant administrator role', async () => {
    const me = (await sut.api('user.detail', { query: { id: editorId }, token: editor })).body.data;
    const { id, username, sex, email, phone, position, groupId, description, homePage, status } = me;
    const r = await sut.api('user.update', {
      token: editor,
      body: { id, username, sex, email, phone, position, groupId, description, homePage, status, roleIds: [...me.roleIds, adminRole] },
    });
    expect(r.status).toBe(403);
    expect(r.body.data.error).toBe('SCOPE_EXCEEDED');
    const after = (await sut.api('user.detail', { query: { id: editorId }, token: admin })).body.data;
    expect(after.roleIds).not.toContain(adminRole);
  });

  it('refuses creating a user with a role beyond the creator', async () => {
    const r = await sut.api('user.create', { token: editor, body: user('sneaky1', [adminRole]) });
    expect(r.status).toBe(403);
    expect((await sut.api('user.check', { query: { username: 'sneaky1' }, token: admin })).body.data.available).toBe(true);
  });

  it('refuses resetting, stopping or deleting the tenant administrator, whose password keeps working', async () => {
    const id = tenantAdminId('esc');
    expect((await sut.api('user.resetPassword', { token: editor, body: { id, password: 'Taken#123' } })).status).toBe(403);
    expect((await sut.api('user.status', { token: editor, body: { id, status: 'stopped' } })).status).toBe(403);
    expect((await sut.call('user.delete', { token: editor, query: { id } })).status).toBe(403);
    expect(await sut.login('escCo', 'Esc#admin1')).toBeTruthy();
  });

  it('refuses a role editor who creates or grants a role with menus beyond their own, and keeps the built-in roles', async () => {
    const granters = (
      await sut.api('role.create', {
        token: admin,
        body: {
          name: 'granters',
          remark: null,
          menuIds: menusOf('system:role:list', 'system:role:add', 'system:role:grant', 'system:role:delete', 'system:user:list'),
        },
      })
    ).body.data.id;
    await sut.api('user.create', { token: admin, body: user('granter1', [granters]) });
    const granter = await sut.login('granter1', 'Esc#pw1234');
    const beyond = menusOf('system:user:list', 'system:user:delete');
    const created = await sut.api('role.create', { token: granter, body: { name: 'deleters', remark: null, menuIds: beyond } });
    expect(created.status).toBe(403);
    expect(created.body.data.error).toBe('SCOPE_EXCEEDED');
    const own = (
      await sut.api('role.create', {
        token: granter,
        body: { name: 'listers', remark: null, menuIds: menusOf('system:user:list') },
      })
    ).body.data.id;
    const granted = await sut.api('role.grant', { token: granter, body: { id: own, menuIds: beyond } });
    expect(granted.status).toBe(403);
    expect(granted.body.data.error).toBe('SCOPE_EXCEEDED');
    expect((await sut.api('role.menus', { query: { id: own }, token: admin })).body.data.menuIds).toEqual(menusOf('system:user:list'));
    // The built-in administrator role cannot be deleted, by anyone; nor any other built-in role.
    for (const token of [granter, admin]) {
      expect((await sut.call('role.delete', { token, query: { id: adminRole } })).json!.data.error).toBe('ADMIN_PROTECTED');
      const operator = builtinRoleId('esc', 'operator');
      expect((await sut.call('role.delete', { token, query: { id: operator } })).json!.data.error).toBe('BUILTIN_ROLE');
    }
  });

  it('lets the editor act on a user who holds less', async () => {
    const r = await sut.api('user.resetPassword', { token: editor, body: { id: peerId, password: 'Peer#new12' } });
    expect(r.status).toBe(200);
    expect(await sut.login('peer1', 'Peer#new12')).toBeTruthy();
  });
});
