import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinMenus } from '@iot/contracts';
import { handleCommand } from '@iot/command/handler.ts';
import { builtinRoleId, provisionTenant } from '@iot/command/role/builtin.ts';
import { roleDecider, roleStream } from '@iot/command/role/decide.ts';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';

/**
 * A release that adds screens gives them to the built-in roles of tenants approved before it, once: an entry an
 * administrator takes away afterwards stays away.
 */
let sut: TestPlatform;
beforeAll(async () => {
  sut = await startTestPlatform();
});
afterAll(async () => sut?.stop());

describe('built-in roles across a catalogue upgrade', () => {
  it("adds the new release's entries to an older tenant's operator role, and respects a later removal", async () => {
    const store = sut.platform.context.store;
    const tenantId = 'oscar';
    const roleId = builtinRoleId(tenantId, 'operator');
    const stream = roleStream(tenantId, roleId);
    const system = { actor: { kind: 'system' as const, id: 'seed' } };
    // The role as the previous release created it: no device-management buttons.
    const older = builtinMenus.filter((m) => m.id.startsWith('system.user')).map((m) => m.id);
    await handleCommand(
      store,
      roleDecider,
      stream,
      { type: 'CreateRole', roleId, name: '运维人员', remark: null, menuIds: older, builtin: 'operator', nameTaken: false },
      { ...system, tenantId, idempotencyKey: 'builtin-role:operator' },
    );
    await provisionTenant(store, tenantId, null, system);
    const menus = async () =>
      (await store.readStream(stream)).reduce(roleDecider.evolve as never, roleDecider.initialState).menuIds as string[];
    expect(await menus()).toEqual(expect.arrayContaining([...older, 'device.template', 'device.device.import']));

    await handleCommand(
      store,
      roleDecider,
      stream,
      { type: 'GrantRoleMenus', roleId, menuIds: (await menus()).filter((id) => id !== 'device.template') },
      { ...system, tenantId },
    );
    await provisionTenant(store, tenantId, null, system);
    expect(await menus()).not.toContain('device.template');
    expect(await menus()).toContain('device.device.import');
  });
});
