import { seedDemoAnalysis } from './seed-analysis.ts';
import { randomBytes } from 'node:crypto';
import { SYSTEM_TENANT, type BuiltinRole, type GroupType } from '@iot/contracts';
import { setPassword } from '@iot/command/auth/credentials.ts';
import { groupDecider, groupStream } from '@iot/command/group/decide.ts';
import { handleCommand, newAggregateId, type CommandContext } from '@iot/command/handler.ts';
import { builtinRoleId } from '@iot/command/role/builtin.ts';
import { registerTenant, tenantAdminId } from '@iot/command/tenant/handlers.ts';
import { tenantDecider, tenantStream } from '@iot/command/tenant/decide.ts';
import { userDecider, userStream } from '@iot/command/user/decide.ts';
import { claimEmail, claimPhone, claimUsername } from '@iot/command/user/usernames.ts';
import type { AppContext } from '@iot/infra/http/context.ts';
import { seedDemoAlarms, seedDemoFleet } from './seed-fleet.ts';
import { seedDemoScenes } from './seed-scenes.ts';

/** What a fresh platform holds before anyone uses it: the system administrator, and the demo tenant. */

export const ADMIN_USER_ID = 'admin';

/** Creates the system administrator on first start; its password comes from ADMIN_PASSWORD or is generated once. */
export async function seedSystemAdmin(context: AppContext, adminPassword: string | undefined): Promise<string | null> {
  const stream = userStream(SYSTEM_TENANT, ADMIN_USER_ID);
  if ((await context.store.readStream(stream, { limit: 1 })).length > 0) return null;
  const password = adminPassword ?? randomBytes(9).toString('base64url').slice(0, 12);
  await claimUsername(context.db, 'admin', ADMIN_USER_ID);
  await handleCommand(
    context.store,
    userDecider,
    stream,
    {
      type: 'CreateUser',
      userId: ADMIN_USER_ID,
      username: 'admin',
      email: null,
      phone: null,
      sex: 'unknown',
      position: null,
      groupId: null,
      roleIds: [],
      description: 'System administrator',
      homePage: null,
      isSystemAdmin: true,
      isTenantAdmin: false,
    },
    { tenantId: SYSTEM_TENANT, actor: { kind: 'system', id: 'bootstrap' }, idempotencyKey: 'bootstrap-admin' },
  );
  await setPassword(context.db, ADMIN_USER_ID, SYSTEM_TENANT, password);
  return adminPassword ? null : password;
}

export interface SeedTenant {
  id: string;
  name: string;
  adminUsername: string;
  adminPassword: string;
}

export const DEMO_TENANT: SeedTenant = { id: 'demo', name: 'demo', adminUsername: 'demo', adminPassword: 'demo123456' };

/** The demo tenant of a fresh `npm start`: its administrator, two regions with sites, an operator and an auditor. */
export async function seedDemoData(context: AppContext): Promise<void> {
  const { tenantId } = await seedDemoTenant(context, DEMO_TENANT);
  const seed: CommandContext = { tenantId, actor: { kind: 'system', id: 'seed' } };
  const groups: Array<[key: string, name: string, type: GroupType, parent: string | null, location: string | null]> = [
    ['east', '华东区域', 'institution', null, '上海'],
    ['east-plant', '浦东配电站', 'powerStation', 'east', '上海市浦东新区'],
    ['east-office', '上海办公室', 'office', 'east', '上海市徐汇区'],
    ['south', '华南区域', 'institution', null, '深圳'],
    ['south-garage', '南山车库', 'garage', 'south', '深圳市南山区'],
  ];
  const groupId = (key: string) => newAggregateId({ tenantId, idempotencyKey: `demo-group:${key}` });
  for (const [key, name, type, parent, location] of groups) {
    await handleCommand(
      context.store,
      groupDecider,
      groupStream(tenantId, groupId(key)),
      {
        type: 'CreateGroup',
        groupId: groupId(key),
        byTenantAdmin: true,
        group: { name, type, location, sort: 0, parentId: parent ? groupId(parent) : null },
      },
      { ...seed, idempotencyKey: `demo-group:${key}` },
    );
  }
  // Phones are unique platform-wide like usernames and emails: one each.
  const users: Array<[username: string, role: BuiltinRole, group: string, position: string, phone: string]> = [
    ['demo_operator', 'operator', 'east-plant', '运维工程师', '13800000001'],
    ['demo_auditor', 'auditor', 'east-office', '审计专员', '13800000002'],
  ];
  for (const [username, role, group, position, phone] of users) {
    const userId = newAggregateId({ tenantId, idempotencyKey: `demo-user:${username}` });
    await claimUsername(context.db, username, userId);
    await claimEmail(context.db, `${username}@demo.example`, userId);
    await claimPhone(context.db, phone, userId);
    const created = await handleCommand(
      context.store,
      userDecider,
      userStream(tenantId, userId),
      {
        type: 'CreateUser',
        userId,
        username,
        email: `${username}@demo.example`,
        phone,
        sex: 'unknown',
        position,
        groupId: groupId(group),
        roleIds: [builtinRoleId(tenantId, role)],
        description: '演示用户',
        homePage: null,
        isSystemAdmin: false,
        isTenantAdmin: false,
      },
      { ...seed, idempotencyKey: `demo-user:${username}` },
    );
    if (created.applied) await setPassword(context.db, userId, tenantId, DEMO_TENANT.adminPassword);
  }
  await seedDemoFleet(context, tenantId, groupId);
  await seedDemoAlarms(context, tenantId);
  await seedDemoScenes(context, tenantId);
  await seedDemoAnalysis(context, tenantId);
}

/**
 * Creates an approved tenant through the same steps as a visitor and an auditor: registration, approval,
 * then the onboarding workflow (administrator, built-in roles, menus). Idempotent. Used for the demo
 * tenant and by tests.
 */
export async function seedDemoTenant(context: AppContext, tenant: SeedTenant): Promise<{ tenantId: string; adminUserId: string }> {
  const seed: CommandContext = { tenantId: tenant.id, actor: { kind: 'system', id: 'seed' } };
  const adminUserId = tenantAdminId(tenant.id);
  const registered = (await context.store.readStream(tenantStream(tenant.id), { limit: 1 })).length > 0;
  if (!registered)
    await registerTenant(
      context,
      {
        tenantId: tenant.id,
        name: tenant.adminUsername,
        contactName: tenant.adminUsername,
        company: tenant.name,
        method: 'email',
        phone: null,
        email: null,
        password: tenant.adminPassword,
      },
      { ...seed, idempotencyKey: 'seed-tenant' },
    );
  await handleCommand(
    context.store,
    tenantDecider,
    tenantStream(tenant.id),
    { type: 'ApproveTenant', tenantId: tenant.id, adminUserId },
    { ...seed, idempotencyKey: 'seed-approve' },
  );
  // Once for the workflow to run, once more for the read models to take in what it appended.
  await context.awaitProjections?.();
  await context.awaitProjections?.();
  return { tenantId: tenant.id, adminUserId };
}
