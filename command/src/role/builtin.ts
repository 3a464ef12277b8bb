import { createHash } from 'node:crypto';
import { builtinMenus, builtinRoles, builtinRoleText, type BuiltinRole } from '@iot/contracts';
import type { EventStore } from '@iot/contracts/ports/event-store.ts';
import type { Lookups } from '@iot/contracts/ports/lookups.ts';
import { handleCommand, loadState, newAggregateId, type CommandContext } from '../handler.ts';
import { userDecider, userStream } from '../user/decide.ts';
import { roleDecider, roleStream } from './decide.ts';
import { createRootChain } from '../rule/handlers.ts';

const inArea =
  (...keys: string[]) =>
  (id: string) =>
    keys.some((k) => id === k || id.startsWith(`${k}.`));

/**
 * Entries a built-in role no longer gets although earlier releases gave them, taken from the roles of older tenants
 * once. The operator's notification-settings edit: the settings hold the tenant's channel credentials and decide
 * where the platform sends the tenant's data (issue 24), a tenant administrator's call.
 */
const withheld: Partial<Record<BuiltinRole, ReadonlySet<string>>> = { operator: new Set(['alarm.notifySettings.edit']) };

/** Which built-in menus each built-in role grants. */
const grants: Record<BuiltinRole, (menu: (typeof builtinMenus)[number]) => boolean> = {
  tenantAdmin: (m) => !m.permission?.startsWith('platform:'),
  operator: (m) =>
    inArea('home', 'operation', 'device', 'scene', 'rule', 'alarm', 'forward', 'system.user', 'system.dept')(m.id) &&
    (!m.id.startsWith('system.') || m.type === 'menu' || m.permission?.endsWith(':list') === true) &&
    !withheld.operator!.has(m.id),
  auditor: (m) => !m.permission?.startsWith('platform:') && (m.type === 'menu' || /:(list|view|export|history)$/.test(m.permission ?? '')),
  // A screen shown is a screen whose reads are allowed: spec §8 sends any 403 to login.
  analyst: (m) =>
    inArea('home', 'analysis')(m.id) || (inArea('device')(m.id) && (m.type === 'menu' || m.permission?.endsWith(':list') === true)),
  tester: (m) => inArea('home', 'producttest')(m.id),
};

/** The id of a tenant's built-in role: derived, so that provisioning twice lands on the same streams. */
export const builtinRoleId = (tenantId: string, role: BuiltinRole) => newAggregateId({ tenantId, idempotencyKey: `builtin-role:${role}` });

/**
 * Gives a tenant its built-in roles (tenant admin, operator, auditor, analyst, tester) and its
 * administrator the tenant-admin role. Idempotent: run on approval and again on every start.
 */
export async function provisionTenant(
  store: EventStore,
  tenantId: string,
  adminUserId: string | null,
  context: Omit<CommandContext, 'tenantId' | 'idempotencyKey'>,
): Promise<void> {
  for (const role of builtinRoles) {
    const roleId = builtinRoleId(tenantId, role);
    const menuIds = builtinMenus.filter(grants[role]).map((m) => m.id);
    const created = await handleCommand(
      store,
      roleDecider,
      roleStream(tenantId, roleId),
      { type: 'CreateRole', roleId, ...builtinRoleText[role].zh, menuIds, builtin: role, nameTaken: false },
      {
        ...context,
        tenantId,
        idempotencyKey: `builtin-role:${role}`,
      },
    );
    // A release that adds screens (device management) adds them to the built-in roles of tenants approved before
    // it; an entry once offered (at creation or by an earlier release) and taken away by an administrator stays away.
    const history = await store.readStream(roleStream(tenantId, roleId));
    const offered = new Set<string>();
    const withdrawnBefore = new Set<string>();
    for (const e of history) {
      const key = e.metadata.idempotencyKey ?? '';
      if (key === `builtin-role:${role}` || key.startsWith(`builtin-role:${role}:grants:`))
        for (const id of (e.data.menuIds as string[]) ?? []) offered.add(id);
      if (key.startsWith(`builtin-role:${role}:withdraws:`)) for (const id of key.split(':').at(-1)!.split(',')) withdrawnBefore.add(id);
    }
    const added = menuIds.filter((id) => !offered.has(id) && !created.state.menuIds.includes(id));
    let held = created.state.menuIds;
    if (added.length > 0 && !created.state.deleted)
      held = (
        await handleCommand(
          store,
          roleDecider,
          roleStream(tenantId, roleId),
          { type: 'GrantRoleMenus', roleId, menuIds: [...created.state.menuIds, ...added] },
          {
            ...context,
            tenantId,
            idempotencyKey: `builtin-role:${role}:grants:${createHash('sha256').update(menuIds.join(',')).digest('hex').slice(0, 16)}`,
          },
        )
      ).state.menuIds;
    // An entry a release withholds is taken from the roles of tenants approved before it, once: an administrator who
    // grants it again keeps it.
    const withdrawn = [...(withheld[role] ?? [])].filter((id) => offered.has(id) && held.includes(id) && !withdrawnBefore.has(id)).sort();
    if (withdrawn.length > 0 && !created.state.deleted)
      await handleCommand(
        store,
        roleDecider,
        roleStream(tenantId, roleId),
        { type: 'GrantRoleMenus', roleId, menuIds: held.filter((id) => !withdrawn.includes(id)) },
        {
          ...context,
          tenantId,
          idempotencyKey: `builtin-role:${role}:withdraws:${withdrawn.join(',')}`,
        },
      );
  }
  // Its root rule chain (issue 19): at approval, and at the next start for tenants approved before chains existed.
  await createRootChain(store, tenantId, context);
  if (!adminUserId) return;
  const stream = userStream(tenantId, adminUserId);
  const { state, version } = await loadState(store, userDecider, stream);
  if (version === 0) return;
  if (!state.profile || state.deleted || state.profile.roleIds.length > 0) return;
  await handleCommand(
    store,
    userDecider,
    stream,
    { type: 'UpdateUser', userId: adminUserId, ...state.profile, roleIds: [builtinRoleId(tenantId, 'tenantAdmin')] },
    {
      ...context,
      tenantId,
      idempotencyKey: 'builtin-role:admin',
    },
  );
}

/** Provisions every approved tenant (tenants approved before built-in roles existed, and the demo tenant). */
export async function provisionAllTenants(store: EventStore, lookups: Lookups): Promise<void> {
  for (const t of await lookups.approvedTenants())
    await provisionTenant(store, t.id, t.adminUserId, { actor: { kind: 'system', id: 'seed' } });
}
