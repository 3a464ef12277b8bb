import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinMenus } from '@iot/contracts';
import { handleCommand } from '@iot/command/handler.ts';
import { builtinRoleId, provisionTenant } from '@iot/command/role/builtin.ts';
import { roleDecider, roleStream } from '@iot/command/role/decide.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { uniquePhone } from '../harness/phone.ts';

/**
 * A release that adds screens gives them to the built-in roles of tenants approved before it, once: an entry an
 * administrator takes away afterwards stays away.
 */
let sut: TestPlatform;
beforeAll(async () => {
  sut = await startTestPlatform();
});
afterAll(async () => sut?.stop());

/**
 * A tenant's operator role as an earlier release created it, holding `older`: the next start's provisioning, what the
 * role holds, and an administrator's grant.
 */
async function olderOperatorRole(tenantId: string, older: string[]) {
  const store = sut.platform.context.store;
  const roleId = builtinRoleId(tenantId, 'operator');
  const stream = roleStream(tenantId, roleId);
  const system = { actor: { kind: 'system' as const, id: 'seed' } };
  await handleCommand(
    store,
    roleDecider,
    stream,
    { type: 'CreateRole', roleId, name: '运维人员', remark: null, menuIds: older, builtin: 'operator', nameTaken: false },
    { ...system, tenantId, idempotencyKey: 'builtin-role:operator' },
  );
  return {
    start: () => provisionTenant(store, tenantId, null, system),
    menus: async () => (await store.readStream(stream)).reduce(roleDecider.evolve as never, roleDecider.initialState).menuIds as string[],
    grant: (menuIds: string[]) =>
      handleCommand(store, roleDecider, stream, { type: 'GrantRoleMenus', roleId, menuIds }, { ...system, tenantId }),
  };
}

describe('built-in roles across a catalogue upgrade', () => {
  it("adds the new release's entries to an older tenant's operator role, and respects a later removal", async () => {
    // The role as the previous release created it: no device-management buttons.
    const older = builtinMenus.filter((m) => m.id.startsWith('system.user')).map((m) => m.id);
    const role = await olderOperatorRole('oscar', older);
    await role.start();
    expect(await role.menus()).toEqual(expect.arrayContaining([...older, 'device.template', 'device.device.import']));

    await role.grant((await role.menus()).filter((id) => id !== 'device.template'));
    await role.start();
    expect(await role.menus()).not.toContain('device.template');
    expect(await role.menus()).toContain('device.device.import');
  });

  it("takes the notification-settings edit from an older tenant's operator role once, and leaves it with an administrator who grants it again", async () => {
    // The role as the previous release created it: the whole alarm area, the notification settings' edit included.
    const older = builtinMenus.filter((m) => m.id.startsWith('alarm')).map((m) => m.id);
    expect(older).toContain('alarm.notifySettings.edit');
    const role = await olderOperatorRole('papa', older);
    await role.start();
    expect(await role.menus()).not.toContain('alarm.notifySettings.edit');
    expect(await role.menus()).toEqual(expect.arrayContaining(['alarm.notifySettings', 'alarm.notifySettings.list', 'alarm.monitor.ack']));

    // An administrator gives it back: the next start leaves it.
    await role.grant([...(await role.menus()), 'alarm.notifySettings.edit']);
    await role.start();
    expect(await role.menus()).toContain('alarm.notifySettings.edit');
  });

  it("gives a new tenant's operator the notification settings to read, not to edit (issue 24)", async () => {
    await sut.seedTenant({ id: 'quebecop', name: 'QuebecOp', adminUsername: 'quebecOpAdmin', adminPassword: 'Quebec#pw1' });
    const admin = await sut.login('quebecOpAdmin', 'Quebec#pw1');
    const created = await sut.call('user.create', {
      token: admin,
      body: {
        username: 'quebecOperator',
        password: 'Operator#pw1',
        email: 'operator@quebecop.example',
        phone: uniquePhone(),
        sex: 'unknown',
        status: 'enabled',
        roleIds: [builtinRoleId('quebecop', 'operator')],
      },
    });
    expect(created.status, created.body).toBe(200);
    await sut.platform.runner.catchUp();
    const operator = await sut.login('quebecOperator', 'Operator#pw1');
    expect((await sut.call('notify.settings', { token: operator })).status).toBe(200);
    const edit = await sut.call('notify.saveSettings', {
      token: operator,
      body: { wecomWebhook: 'https://qyapi.weixin.qq.com/x' },
    });
    expect([edit.status, edit.json?.data?.error]).toEqual([403, 'FORBIDDEN']);
    expect((await sut.call('notify.saveSettings', { token: admin, body: { tenantPerMinute: 60 } })).status).toBe(200);
  });
});
