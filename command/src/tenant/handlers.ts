import { DomainError, SYSTEM_TENANT, type TenantRoutes } from '@iot/contracts';
import type { Handlers, Ports } from '@iot/contracts/http/handler.ts';
import type { CommandDispatchers, DispatchMetadata, DispatchResult } from '@iot/contracts/ports/dispatch.ts';
import { handleCommand, loadState, newAggregateId, type CommandContext } from '../handler.ts';
import { anonymousCommandContextOf, runCommand } from '../request.ts';
import { moveCredential, setPassword } from '../auth/credentials.ts';
import { provisionTenant } from '../role/builtin.ts';
import { userDecider, userStream } from '../user/decide.ts';
import { claimEmail, claimPhone, claimUsername, releaseUsernames, transferUsernames } from '../user/usernames.ts';
import { consumeCode, issueCode } from './codes.ts';
import { reserveCodeRequest } from '../auth/throttle.ts';
import { tenantDecider, tenantStream } from './decide.ts';
import type { TenantState } from './tenant.ts';

/** Until approval, the registration's password and name belong to the registration itself. */
export const pendingCredential = (tenantId: string) => `registration:${tenantId}`;
/** The administrator of a tenant: derived, so that approving twice names the same user. */
export const tenantAdminId = (tenantId: string) => newAggregateId({ tenantId, idempotencyKey: 'tenant-admin' });

/** A tenant's name is its administrator's username: free when nobody claims it and no tenant has it. */
async function nameIsFree(ports: Pick<Ports, 'db' | 'lookups'>, name: string): Promise<boolean> {
  const claimed = await ports.db.query('select 1 from username_claims where username = lower($1)', [name]);
  return claimed.rowCount === 0 && !(await ports.lookups.tenantNameInUse(name));
}

export interface Registration {
  tenantId: string;
  name: string;
  contactName: string;
  company: string;
  method: 'phone' | 'email';
  phone: string | null;
  email: string | null;
  password: string;
}

/** Registers a tenant under review: its name claimed, its password kept for its future administrator. Used by the route and the seed. */
export async function registerTenant(ports: Pick<Ports, 'store' | 'db'>, registration: Registration, context: CommandContext) {
  const { password, ...tenant } = registration;
  await claimUsername(ports.db, tenant.name, pendingCredential(tenant.tenantId), 'TENANT_NAME_TAKEN');
  // The registration's email and phone become its administrator's: claimed now, handed over on approval.
  try {
    await claimEmail(ports.db, tenant.email, pendingCredential(tenant.tenantId));
    await claimPhone(ports.db, tenant.phone, pendingCredential(tenant.tenantId));
  } catch (error) {
    await releaseUsernames(ports.db, pendingCredential(tenant.tenantId));
    throw error;
  }
  const result = await handleCommand(
    ports.store,
    tenantDecider,
    tenantStream(tenant.tenantId),
    { type: 'RegisterTenant', ...tenant },
    context,
  );
  if (result.applied) await setPassword(ports.db, pendingCredential(tenant.tenantId), tenant.tenantId, password);
  return result;
}

/** The audit result goes back the way the visitor registered: SMS for phone, email for email. */
async function notifyAudit(ports: Pick<Ports, 'notifier'>, tenant: TenantState, approved: boolean, reason: string | null) {
  const to = tenant.method === 'phone' ? tenant.phone : tenant.email;
  if (!to) return;
  await ports.notifier.send({
    tenantId: SYSTEM_TENANT,
    channel: tenant.method === 'phone' ? 'sms' : 'email',
    to,
    subject: approved ? 'Registration approved / 注册审核通过' : 'Registration rejected / 注册审核未通过',
    body: approved
      ? `Tenant ${tenant.name} is approved: log in as ${tenant.name} with your password. 租户 ${tenant.name} 已审核通过。`
      : `Tenant ${tenant.name} was not approved${reason ? `: ${reason}` : ''}. 租户 ${tenant.name} 审核未通过${reason ? `：${reason}` : ''}。`,
  });
}

/** Tenant registration and audit routes; approval only records the decision, the onboarding workflow does the rest. */
export const tenantHandlers: Omit<Handlers<TenantRoutes>, 'tenant.list'> = {
  async 'tenant.sendCode'({ body }, ctx) {
    await reserveCodeRequest(ctx.ports.db, body.target, ctx.ip);
    const { code, resendAfter } = await issueCode(ctx.ports.db, body.target);
    await ctx.ports.notifier.send({
      tenantId: SYSTEM_TENANT,
      channel: body.method === 'phone' ? 'sms' : 'email',
      to: body.target,
      subject: 'Verification code / 验证码',
      body: `Your verification code is ${code}. 您的验证码是 ${code}。`,
    });
    return { resendAfter };
  },

  async 'tenant.register'({ body }, ctx) {
    // The code first: whether a name is taken is told only to someone who holds a real phone or mailbox.
    await consumeCode(ctx.ports.db, body.method === 'phone' ? body.phone! : body.email!, body.code);
    if (!(await nameIsFree(ctx.ports, body.tenantName))) throw new DomainError('TENANT_NAME_TAKEN');
    const tenantId = newAggregateId({ tenantId: SYSTEM_TENANT, idempotencyKey: ctx.idempotencyKey });
    await registerTenant(
      ctx.ports,
      {
        tenantId,
        name: body.tenantName,
        contactName: body.contactName,
        company: body.company,
        method: body.method,
        phone: body.phone ?? null,
        email: body.email ?? null,
        password: body.password,
      },
      anonymousCommandContextOf(ctx, tenantId),
    );
    return { id: tenantId, status: 'underReview' as const };
  },

  async 'tenant.approve'({ body }, ctx) {
    const adminUserId = tenantAdminId(body.id);
    await runCommand(ctx, tenantDecider, tenantStream(body.id), { type: 'ApproveTenant', tenantId: body.id, adminUserId });
    return { id: body.id, adminUserId };
  },

  async 'tenant.reject'({ body }, ctx) {
    const { id, reason } = body;
    const result = await runCommand(ctx, tenantDecider, tenantStream(id), { type: 'RejectTenant', tenantId: id, reason: reason ?? null });
    // The registration's password stays (as a hash), so that its applicant is told at login why they cannot enter.
    await releaseUsernames(ctx.ports.db, pendingCredential(id));
    await notifyAudit(ctx.ports, result.state, false, reason ?? null);
    return { id };
  },

  async 'tenant.stop'({ body }, ctx) {
    await runCommand(ctx, tenantDecider, tenantStream(body.id), { type: 'StopTenant', tenantId: body.id });
    return { id: body.id };
  },

  async 'tenant.start'({ body }, ctx) {
    await runCommand(ctx, tenantDecider, tenantStream(body.id), { type: 'StartTenant', tenantId: body.id });
    return { id: body.id };
  },
};

const contextOf = (metadata: DispatchMetadata): CommandContext => ({ ...metadata });
const positionOf = (result: { events: { position: string }[] }): DispatchResult => ({ position: result.events.at(-1)?.position ?? null });

type OnboardingStep =
  'CreateTenantAdmin' | 'ActivateTenantAdminCredential' | 'ProvisionTenant' | 'NotifyTenantAudit' | 'MarkTenantOnboarded';

/** The onboarding workflow's steps as commands (contracts/src/ports/dispatch.ts), each idempotent. */
export function tenantDispatchers(ports: Omit<Ports, 'dispatch'>): Pick<CommandDispatchers, OnboardingStep> {
  const tenantOf = async (tenantId: string) => (await loadState(ports.store, tenantDecider, tenantStream(tenantId))).state;
  return {
    async CreateTenantAdmin(command, metadata) {
      const { tenantId, adminUserId } = command;
      const tenant = await tenantOf(tenantId);
      // The registration's claim on the name becomes the administrator's.
      await transferUsernames(ports.db, pendingCredential(tenantId), adminUserId);
      const result = await handleCommand(
        ports.store,
        userDecider,
        userStream(tenantId, adminUserId),
        {
          type: 'CreateUser',
          userId: adminUserId,
          username: tenant.name!,
          email: tenant.email,
          phone: tenant.phone,
          sex: 'unknown',
          position: null,
          groupId: null,
          roleIds: [],
          description: null,
          homePage: null,
          isSystemAdmin: false,
          isTenantAdmin: true,
        },
        contextOf(metadata),
      );
      return positionOf(result);
    },
    async ActivateTenantAdminCredential(command) {
      await moveCredential(ports.db, pendingCredential(command.tenantId), command.adminUserId, command.tenantId);
      return { position: null };
    },
    async ProvisionTenant(command, metadata) {
      const { idempotencyKey: _key, tenantId: _tenant, ...context } = metadata;
      await provisionTenant(ports.store, command.tenantId, command.adminUserId, context);
      return { position: null };
    },
    async NotifyTenantAudit(command) {
      const tenant = await tenantOf(command.tenantId);
      if (!tenant.onboarded) await notifyAudit(ports, tenant, command.approved, command.reason);
      return { position: null };
    },
    async MarkTenantOnboarded(command, metadata) {
      const result = await handleCommand(
        ports.store,
        tenantDecider,
        tenantStream(command.tenantId),
        { type: 'MarkTenantOnboarded', tenantId: command.tenantId, adminUserId: command.adminUserId },
        contextOf(metadata),
      );
      return positionOf(result);
    },
  };
}
