import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PNG_SIGNATURE } from '@iot/contracts';
import { isTenantActive } from '@iot/projections/tenant/read.ts';
import { ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { uniquePhone } from '../harness/phone.ts';
import { malformed, specOf, type BodyOf } from '../harness/api.ts';

let sut: TestPlatform;
let admin: string;
let sys: string;
const data = (r: { status: number; body: string }) => {
  expect(r.status, r.body).toBe(200);
  return JSON.parse(r.body).data;
};
/** A user's body; what `over` sets to undefined is left out, as a form without it would send. */
const user = (over: Partial<BodyOf<'user.create'>> = {}) =>
  ({
    sex: 'male',
    email: 'zhang@example.com',
    phone: uniquePhone(),
    status: 'enabled',
    password: 'Zhang#123',
    ...over,
  }) as BodyOf<'user.create'>;

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'gamma', name: 'gammaCo', adminUsername: 'gammaAdmin', adminPassword: 'Gamma#pw1' });
  admin = await sut.login('gammaAdmin', 'Gamma#pw1');
  sys = await sut.login('admin', ADMIN_PASSWORD);
});
afterAll(async () => sut?.stop());

async function role(name: string, menuIds: string[]) {
  return data(await sut.call('role.create', { token: admin, body: { name, menuIds } })).id as string;
}

describe('users', () => {
  it('validates with the spec messages in zh and en, naming the field', async () => {
    const zh = await sut.call('user.create', { token: admin, body: user({ username: 'ab', roleIds: ['x'] }) });
    expect(zh.status).toBe(400);
    expect(zh.json!.msg).toContain('请完善必填项');
    expect(zh.json!.msg).toContain('body.username');
    const en = await sut.call('user.create', {
      token: admin,
      headers: { lang: 'en' },
      body: user({ username: 'zhang', roleIds: [], sex: undefined }),
    });
    expect(en.json!.msg).toMatch(/^Please complete the required fields: .*body\.sex/);
    expect(en.json!.msg).toContain('body.roleIds');
  });

  it('creates, checks, lists (paged, sorted, filtered), edits, stops and deletes a user', async () => {
    const roleId = await role('operatorX', ['system.user', 'system.user.list']);
    const id = data(
      await sut.call('user.create', {
        token: admin,
        body: user({ username: 'zhang', roleIds: [roleId], position: 'engineer' }),
      }),
    ).id;
    expect(data(await sut.call('user.check', { token: admin, query: { username: 'ZHANG' } }))).toEqual({
      available: false,
    });
    const taken = await sut.call('user.create', {
      token: admin,
      headers: { lang: 'en' },
      body: user({ username: 'zhang', roleIds: [roleId] }),
    });
    expect(taken.json!.msg).toBe('Username already exists');
    await sut.call('user.create', {
      token: admin,
      body: user({ username: 'wang', email: 'wang@example.com', roleIds: [roleId] }),
    });
    const page1 = data(await sut.call('user.list', { token: admin, query: { pageSize: '2', page: '1', sort: 'username', order: 'asc' } }));
    expect(page1.total).toBe(3);
    expect(page1.rows.map((u: { username: string }) => u.username)).toEqual(['gammaAdmin', 'wang']);
    const filtered = data(await sut.call('user.list', { token: admin, query: { position: 'engin', roleId } }));
    expect(filtered.rows.map((u: { id: string; roleNames: string[] }) => [u.id, u.roleNames])).toEqual([[id, ['operatorX']]]);
    expect(data(await sut.call('user.positions', { token: admin }))).toEqual(['engineer']);
    const zhang = await sut.login('zhang', 'Zhang#123');
    expect(data(await sut.call('user.list', { token: zhang })).total).toBe(3);
    expect((await sut.call('user.create', { token: zhang, body: user({ username: 'liwei', roleIds: [roleId] }) })).status).toBe(403);
    data(
      await sut.call('user.update', {
        token: admin,
        body: { id, ...user({ username: 'zhang2', roleIds: [roleId], password: undefined }), position: 'lead' },
      }),
    );
    expect(data(await sut.call('user.detail', { token: admin, query: { id } })).username).toBe('zhang2');
    // Stopping a user ends their sessions at once and keeps them out.
    data(await sut.call('user.status', { token: admin, body: { id, status: 'stopped' } }));
    expect((await sut.call('auth.currentUser', { token: zhang })).status).toBe(401);
    expect((await sut.call('auth.login', { body: { account: 'zhang2', password: 'Zhang#123', agreement: true } })).json!.data.error).toBe(
      'ACCOUNT_STOPPED',
    );
    data(await sut.call('user.delete', { token: admin, query: { id } }));
    expect((await sut.call('user.detail', { token: admin, query: { id } })).status).toBe(404);
  });

  it('changes a password (old one checked, sessions revoked), resets it as admin, checks it', async () => {
    const roleId = await role('plain', ['home', 'home.index']);
    const id = data(
      await sut.call('user.create', {
        token: admin,
        body: user({ username: 'chen', email: 'chen@example.com', roleIds: [roleId] }),
      }),
    ).id;
    const token = await sut.login('chen', 'Zhang#123');
    expect(data(await sut.call('user.checkPassword', { token, body: { password: 'Zhang#123' } }))).toEqual({
      valid: true,
    });
    expect(
      (
        await sut.call('user.changePassword', {
          token,
          headers: { lang: 'en' },
          body: { oldPassword: 'wrong!', newPassword: 'Chen#456' },
        })
      ).json!.msg,
    ).toBe('The old password is wrong');
    expect((await sut.call('user.changePassword', { token, body: { oldPassword: 'Zhang#123', newPassword: '12345' } })).status).toBe(400);
    data(await sut.call('user.changePassword', { token, body: { oldPassword: 'Zhang#123', newPassword: 'Chen#456' } }));
    expect((await sut.call('auth.currentUser', { token })).status).toBe(401);
    const again = await sut.login('chen', 'Chen#456');
    data(await sut.call('user.resetPassword', { token: admin, body: { id, password: 'Reset#789' } }));
    expect((await sut.call('auth.currentUser', { token: again })).status).toBe(401);
    await sut.login('chen', 'Reset#789');
    const events = await sut.platform.context.store.readStream(`user-gamma.${id}`);
    expect(events.filter((e) => e.type === 'UserPasswordChanged').map((e) => e.data)).toEqual([
      { userId: id, byAdministrator: false },
      { userId: id, byAdministrator: true },
    ]);
  });

  it('reads and edits the own profile', async () => {
    expect(data(await sut.call('user.profile', { token: admin })).username).toBe('gammaAdmin');
    data(
      await sut.call('user.updateProfile', {
        token: admin,
        body: { sex: 'female', email: 'boss@example.com', phone: '13600000000', homePage: '/index' },
      }),
    );
    expect(data(await sut.call('auth.currentUser', { token: admin })).homePage).toBe('/index');
  });
});

describe('login', () => {
  it('throttles 5 failures of one account within 15 minutes, from any address', async () => {
    for (let i = 0; i < 5; i++)
      expect((await sut.call('auth.login', { body: { account: 'gammaAdmin', password: 'nope', agreement: true } })).json!.data.error).toBe(
        'LOGIN_FAILED',
      );
    const refused = await sut.call('auth.login', {
      headers: { lang: 'en' },
      body: { account: 'gammaAdmin', password: 'Gamma#pw1', agreement: true },
    });
    expect(refused.status).toBe(429);
    expect(refused.json!.msg).toBe('Too many attempts, try again later');
    await sut.platform.context.db.query(`delete from auth_login_failures where key = 'account:gammaadmin'`);
  });

  it('throttles an address that fails across many accounts', async () => {
    for (let i = 0; i < 20; i++)
      await sut.call('auth.login', {
        remoteAddress: '10.9.9.9',
        body: { account: `nobody${i}`, password: 'nope', agreement: true },
      });
    expect(
      (
        await sut.call('auth.login', {
          remoteAddress: '10.9.9.9',
          body: { account: 'gammaAdmin', password: 'Gamma#pw1', agreement: true },
        })
      ).status,
    ).toBe(429);
  });

  it('keeps the users of a stopped tenant out, and lets them in again once started', async () => {
    await sut.seedTenant({ id: 'delta', name: 'deltaCo', adminUsername: 'deltaAdmin', adminPassword: 'Delta#pw1' });
    const token = await sut.login('deltaAdmin', 'Delta#pw1');
    expect(await isTenantActive(sut.platform.context.db, 'delta')).toBe(true);
    data(await sut.call('tenant.stop', { token: sys, body: { id: 'delta' } }));
    await sut.platform.runner.catchUp();
    expect(await isTenantActive(sut.platform.context.db, 'delta')).toBe(false);
    expect((await sut.call('auth.currentUser', { token })).status).toBe(401);
    expect(
      (await sut.call('auth.login', { body: { account: 'deltaAdmin', password: 'Delta#pw1', agreement: true } })).json!.data.error,
    ).toBe('TENANT_STOPPED');
    data(await sut.call('tenant.start', { token: sys, body: { id: 'delta' } }));
    await sut.platform.runner.catchUp();
    await sut.login('deltaAdmin', 'Delta#pw1');
  });
});

describe('groups, roles and menus', () => {
  it('keeps the root group to the tenant admin and scopes users by group subtree (stationId)', async () => {
    const rootId = data(await sut.call('group.create', { token: admin, body: { name: 'HQ', type: 'office' } })).id;
    const siteId = data(
      await sut.call('group.create', {
        token: admin,
        body: { name: 'Site 1', type: 'site', parentId: rootId, location: 'Shanghai' },
      }),
    ).id;
    const roomId = data(await sut.call('group.create', { token: admin, body: { name: 'Room', type: 'powerRoom', parentId: siteId } })).id;
    const roleId = await role('groupKeeper', [
      'system.dept',
      'system.dept.list',
      'system.dept.add',
      'system.dept.delete',
      'system.user.list',
    ]);
    data(
      await sut.call('user.create', {
        token: admin,
        body: user({ username: 'keeper', email: 'k@example.com', roleIds: [roleId], groupId: roomId }),
      }),
    );
    const keeper = await sut.login('keeper', 'Zhang#123');
    const refused = await sut.call('group.create', {
      token: keeper,
      headers: { lang: 'en' },
      body: { name: 'Another root', type: 'office' },
    });
    expect(refused.json!.data.error).toBe('ROOT_GROUP_FORBIDDEN');
    expect((await sut.call('group.delete', { token: keeper, query: { id: rootId } })).json!.data.error).toBe('ROOT_GROUP_FORBIDDEN');
    data(await sut.call('group.create', { token: keeper, body: { name: 'Child', type: 'site', parentId: siteId } }));
    const inSite = data(await sut.call('user.ofAgency', { token: admin, query: { groupId: siteId } }));
    expect(inSite.rows.map((u: { username: string }) => u.username)).toEqual(['keeper']);
    const byStation = data(await sut.call('user.byGroupRole', { token: admin, headers: { stationid: roomId }, query: { roleId } }));
    expect(byStation.total).toBe(1);
    // The user list narrows to the header's group subtree too (the header switcher's choice).
    const listed = async (headers: Record<string, string>) =>
      data(await sut.call('user.list', { token: admin, headers, query: { pageSize: '100' } })).rows.map(
        (u: { username: string }) => u.username,
      );
    expect(await listed({ stationid: siteId })).toEqual(['keeper']);
    expect(await listed({})).toEqual(expect.arrayContaining(['keeper', 'gammaAdmin']));
    const tree = data(await sut.call('group.tree', { token: admin }));
    expect(tree[0].children[0].name).toBe('Site 1');
    expect(data(await sut.call('group.types', { token: admin })).length).toBe(9);
    expect((await sut.call('group.delete', { token: admin, query: { id: roomId } })).json!.data.error).toBe('GROUP_IN_USE');
  });

  it('refuses a second role of the same name with "Role already exists"', async () => {
    await role('Auditors', []);
    const again = await sut.call('role.create', { token: admin, headers: { lang: 'en' }, body: { name: 'auditors' } });
    expect(again.json!.msg).toBe('Role already exists');
    expect((await sut.call('role.create', { token: admin, body: { name: 'Auditors' } })).json!.msg).toBe('角色已存在');
    expect(data(await sut.call('role.check', { token: admin, query: { name: 'AUDITORS' } }))).toEqual({
      available: false,
    });
  });

  it("names built-in roles in the caller's language (list, users' roles), unless the tenant renamed them", async () => {
    type Role = { id: string; name: string; remark: string | null; builtin: string | null; renamed: boolean };
    const roles = async (lang: string): Promise<Role[]> =>
      data(await sut.call('role.list', { token: admin, headers: { lang }, query: { pageSize: '100' } })).rows.filter(
        (r: Role) => r.builtin !== null,
      );
    const en = await roles('en');
    expect(en.map((r) => r.name).sort()).toEqual(['Analyst', 'Auditor', 'Operator', 'Tenant administrator', 'Tester']);
    expect(en.every((r) => !/[\u4e00-\u9fff]/.test(`${r.name}${r.remark}`) && !r.renamed)).toBe(true);
    const zh = await roles('zh');
    expect(zh.map((r) => r.name).sort()).toEqual(['审计员', '数据分析员', '测试员', '租户管理员', '运维人员'].sort());
    expect(zh.every((r) => /[\u4e00-\u9fff]/.test(r.remark ?? ''))).toBe(true);
    // The administrator's roles on the user list follow the language too.
    const me = async (lang: string) =>
      data(await sut.call('user.list', { token: admin, headers: { lang }, query: { username: 'gammaAdmin' } })).rows[0].roleNames;
    expect(await me('en')).toEqual(['Tenant administrator']);
    expect(await me('zh')).toEqual(['租户管理员']);
    // Renamed (with a remark of its own), a built-in role keeps what the tenant wrote, in both languages.
    const tester = zh.find((r) => r.builtin === 'tester')!;
    data(await sut.call('role.update', { token: admin, body: { id: tester.id, name: '质检员', remark: '只做出厂检测' } }));
    for (const lang of ['en', 'zh']) {
      expect((await roles(lang)).find((r) => r.id === tester.id)).toMatchObject({ name: '质检员', remark: '只做出厂检测', renamed: true });
    }
  });

  it('grants routes through menus: a role without the menu is refused, granting it opens the route', async () => {
    const roleId = await role('growing', ['home', 'home.index']);
    data(
      await sut.call('user.create', {
        token: admin,
        body: user({ username: 'grower', email: 'g@example.com', roleIds: [roleId] }),
      }),
    );
    const token = await sut.login('grower', 'Zhang#123');
    expect((await sut.call('dict.list', { token })).status).toBe(403);
    data(
      await sut.call('role.grant', {
        token: admin,
        body: { id: roleId, menuIds: ['home', 'home.index', 'system.dict', 'system.dict.list'] },
      }),
    );
    expect((await sut.call('dict.list', { token })).status).toBe(200);
    const tree = data(await sut.call('menu.tree', { token }));
    expect(tree.map((m: { id: string }) => m.id)).toEqual(['home', 'system']);
    expect(tree[1].children[0].children.map((m: { permission: string }) => m.permission)).toEqual(['system:dict:list']);
    const sub = data(await sut.call('menu.tree', { token, query: { parentId: 'system' } }));
    expect(sub.map((m: { id: string }) => m.id)).toEqual(['system.dict']);
    // Titles follow the caller's language.
    expect(tree[1].title).toBe('系统管理');
    const english = data(await sut.call('menu.tree', { token, headers: { lang: 'en' } }));
    expect([english[1].title, english[1].children[0].title, english[1].children[0].children[0].title]).toEqual([
      'System management',
      'Dictionaries',
      'Query',
    ]);
  });

  it('lets the system administrator add, reorder and delete menu entries (name at most 10 characters, path required)', async () => {
    const tooLong = await sut.call('menu.create', { token: sys, body: { type: 'menu', name: 'abcdefghijk', path: '/x' } });
    expect(tooLong.json!.msg).toContain('body.name');
    expect((await sut.call('menu.create', { token: sys, body: malformed({ type: 'menu', name: 'abc' }) })).json!.msg).toContain(
      'body.path',
    );
    const id = data(
      await sut.call('menu.create', { token: sys, body: { type: 'tab', name: 'Extra', path: '/extra', parentId: 'system' } }),
    ).id;
    data(await sut.call('menu.reorder', { token: sys, body: { items: [{ id, sort: 99 }] } }));
    const list = data(await sut.call('menu.list', { token: sys, query: { parentId: 'system', type: 'tab' } }));
    expect(list.map((m: { id: string; sort: number }) => [m.id, m.sort])).toEqual([[id, 99]]);
    expect((await sut.call('menu.create', { token: admin, body: { type: 'tab', name: 'Mine', path: '/m' } })).status).toBe(403);
    data(await sut.call('menu.delete', { token: sys, query: { id } }));
  });
});

describe('apps, dictionaries, settings and the operation log', () => {
  it('creates an app whose secret is shown once and hashed at rest; its token carries its scope', async () => {
    const created = data(
      await sut.call('app.create', {
        token: admin,
        body: { type: 'server', name: 'ERP', scope: ['system:dict:list'], sharing: 'private' },
      }),
    );
    const stored = await sut.platform.context.db.query<{ password_hash: string }>(
      'select password_hash from auth_credentials where subject_id = $1',
      [`app:${created.id}`],
    );
    expect(stored.rows[0]!.password_hash).toMatch(/^\$argon2id\$/);
    const list = data(await sut.call('app.list', { token: admin }));
    expect(JSON.stringify(list)).not.toContain(created.appSecret);
    const token = data(await sut.call('app.token', { body: { appKey: created.appKey, appSecret: created.appSecret } })).token;
    expect((await sut.call('dict.list', { token })).status).toBe(200);
    expect((await sut.call('user.list', { token })).status).toBe(403);
    const rotated = data(await sut.call('app.rotateSecret', { token: admin, body: { id: created.id } }));
    expect((await sut.call('dict.list', { token })).status).toBe(401);
    expect((await sut.call('app.token', { body: { appKey: created.appKey, appSecret: created.appSecret } })).json!.data.error).toBe(
      'APP_AUTH_FAILED',
    );
    data(await sut.call('app.token', { body: { appKey: created.appKey, appSecret: rotated.appSecret } }));
    // appApi lists exactly the routes the key may call; openApi documents them, and nothing else.
    const api = data(await sut.call('app.api', { token: admin, query: { id: created.id } })) as {
      method: string;
      path: string;
    }[];
    const dictList = specOf('dict.list').path;
    const dictItems = specOf('dict.items').path;
    expect(api.map((r) => `${r.method} ${r.path}`).sort()).toEqual([`GET ${dictList}`, `GET ${dictItems}`]);
    const doc = await sut.call('app.openApi', { token: admin, query: { id: created.id } });
    expect(doc.headers['content-type']).toContain('application/json');
    const openApi = JSON.parse(doc.body) as { openapi: string; paths: Record<string, Record<string, { parameters: { name: string }[] }>> };
    expect(openApi.openapi).toBe('3.1.0');
    expect(Object.keys(openApi.paths).sort()).toEqual([dictList, dictItems]);
    expect(openApi.paths[dictList]!.get!.parameters.map((p) => p.name)).toContain('page');
  });

  it('keeps dictionary types and items', async () => {
    const typeId = data(await sut.call('dict.create', { token: admin, body: { code: 'deviceColour', name: 'Colour' } })).id;
    data(await sut.call('dict.addItem', { token: admin, body: { typeId, label: 'Red', value: 'r', sort: 2 } }));
    const blue = data(await sut.call('dict.addItem', { token: admin, body: { typeId, label: 'Blue', value: 'b', sort: 1 } })).id;
    expect((await sut.call('dict.addItem', { token: admin, body: { typeId, label: 'Again', value: 'b' } })).json!.data.error).toBe(
      'DICT_VALUE_TAKEN',
    );
    const items = data(await sut.call('dict.items', { token: admin, query: { code: 'deviceColour' } }));
    expect(items.rows.map((i: { label: string }) => i.label)).toEqual(['Blue', 'Red']);
    data(await sut.call('dict.updateItem', { token: admin, body: { typeId, itemId: blue, label: 'Navy', value: 'b' } }));
    data(await sut.call('dict.removeItem', { token: admin, query: { typeId, itemId: blue } }));
    data(await sut.call('dict.delete', { token: admin, query: { id: typeId } }));
    expect(data(await sut.call('dict.list', { token: admin, query: { code: 'deviceColour' } })).total).toBe(0);
  });

  it('stores a PNG logo of at most 2 MB and serves it', async () => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
    const headers = { 'content-type': 'image/png' };
    data(await sut.call('settings.uploadLogo', { token: admin, headers, body: png }));
    const served = await sut.call('settings.userLogo', { token: admin });
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.rawPayload.equals(png)).toBe(true);
    const big = Buffer.concat([Buffer.from(PNG_SIGNATURE), Buffer.alloc(2 * 1024 * 1024, 1)]);
    const tooBig = await sut.call('settings.uploadLogo', { token: admin, headers: { ...headers, lang: 'en' }, body: big });
    expect(tooBig.json!.msg).toBe('The size of the uploaded picture cannot exceed 2MB!');
    const jpeg = await sut.call('settings.uploadLogo', {
      token: admin,
      headers: { 'content-type': 'image/jpeg' },
      body: Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
    });
    expect(jpeg.json!.data.error).toBe('LOGO_NOT_PNG');
    data(await sut.call('settings.update', { token: admin, body: { systemName: 'Gamma Cloud' } }));
    expect(data(await sut.call('settings.get', { token: admin })).systemName).toBe('Gamma Cloud');
  });

  it('logs who did what, when and from where; filters; exports CSV', async () => {
    // The log is a projection: the last test's writes are in it once the runner has caught up.
    await sut.platform.runner.catchUp();
    const log = data(await sut.call('oplog.list', { token: admin, query: { eventType: 'SystemNameChanged' } }));
    expect(log.rows[0]).toMatchObject({ actorName: 'gammaAdmin', eventType: 'SystemNameChanged', stream: 'settings-gamma.gamma' });
    expect(log.rows[0].ip).toBeTruthy();
    // The target is named: by its own event, or by the stream's last name when its event has none.
    const users = data(await sut.call('oplog.list', { token: admin, query: { pageSize: '500' } })).rows.filter((r: { stream: string }) =>
      r.stream.startsWith('user-'),
    );
    expect(users.length).toBeGreaterThan(0);
    expect(users.every((r: { targetName: string | null }) => typeof r.targetName === 'string' && r.targetName.length > 0)).toBe(true);
    const byActor = data(
      await sut.call('oplog.list', {
        token: admin,
        query: { actor: 'gammaAdmin', pageSize: '5', sort: 'occurredAt', order: 'asc' },
      }),
    );
    expect(byActor.total).toBeGreaterThan(5);
    const csv = await sut.call('oplog.list', { token: admin, query: { format: 'csv', eventType: 'SystemNameChanged' } });
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body).toContain('occurredAt,actorKind,actorId,actorName,eventType');
    expect(csv.body).toContain(',gammaAdmin,SystemNameChanged,');
    expect((await sut.call('oplog.export', { token: admin })).status).toBe(200);
    // No other tenant's lines.
    expect(
      data(await sut.call('oplog.list', { token: admin, query: { pageSize: '500' } })).rows.every((r: { stream: string }) =>
        r.stream.includes('gamma'),
      ),
    ).toBe(true);
  });
});
