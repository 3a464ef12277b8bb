import { DomainError, type UserRoutes } from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { loadState, newAggregateId } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { setPassword, verifyPassword } from '../auth/credentials.ts';
import { clearLoginFailures, reserveLoginAttempt } from '../auth/throttle.ts';
import { revokeSubjectSessions } from '../auth/sessions.ts';
import { assertOwnGroup } from '../group/own.ts';
import { userDecider, userStream } from './decide.ts';
import type { UserProfile } from './user.ts';
import { claimEmail, claimPhone, claimUsername, releaseUsernames, returnPhone, returnUnusedClaims } from './usernames.ts';
import { assertMayActOn, assertMayGrantRoles } from './privilege.ts';

/** The group and roles a user points to must be the caller's tenant's own. */
async function assertReferences(ctx: RequestContext, tenantId: string, groupId: string | null, roleIds: string[]): Promise<void> {
  const { lookups } = ctx.ports;
  if (groupId) await assertOwnGroup(lookups, tenantId, groupId, 'groupId');
  if ((await lookups.rolesOfTenant(tenantId, roleIds)).length !== new Set(roleIds).size)
    throw new DomainError('NOT_FOUND', { field: 'roleIds' });
}

/** A caller acting on their own account: a user, not an app. */
function selfOf(ctx: RequestContext) {
  const caller = callerOf(ctx);
  if (caller.kind !== 'user') throw new DomainError('FORBIDDEN');
  return caller;
}

/** Users of a tenant (spec §3 User): create, edit, enable or stop, delete, passwords. */
export const userHandlers: Pick<
  Handlers<UserRoutes>,
  | 'user.create'
  | 'user.update'
  | 'user.status'
  | 'user.delete'
  | 'user.resetPassword'
  | 'user.changePassword'
  | 'user.checkPassword'
  | 'user.updateProfile'
> = {
  async 'user.create'({ body }, ctx) {
    const { db, store } = ctx.ports;
    const { password, status, ...profile } = body;
    const tenantId = callerOf(ctx).tenantId;
    await assertReferences(ctx, tenantId, profile.groupId, profile.roleIds);
    await assertMayGrantRoles(ctx, profile.roleIds);
    const userId = newAggregateId(commandContextOf(ctx));
    await claimUsername(db, profile.username, userId);
    try {
      await claimEmail(db, profile.email, userId);
      await claimPhone(db, profile.phone, userId);
      await setPassword(db, userId, tenantId, password);
      await runCommand(ctx, userDecider, userStream(tenantId, userId), {
        type: 'CreateUser',
        userId,
        ...profile,
        status,
        isSystemAdmin: false,
        isTenantAdmin: false,
      });
    } catch (error) {
      if ((await store.readStream(userStream(tenantId, userId), { limit: 1 })).length === 0) await releaseUsernames(db, userId);
      throw error;
    }
    return { id: userId };
  },

  async 'user.update'({ body }, ctx) {
    const { db } = ctx.ports;
    const { id, status, ...profile } = body;
    const tenantId = callerOf(ctx).tenantId;
    await assertReferences(ctx, tenantId, profile.groupId, profile.roleIds);
    await assertMayActOn(ctx, id);
    await assertMayGrantRoles(ctx, profile.roleIds);
    let tookPhone = false;
    try {
      await claimUsername(db, profile.username, id);
      await claimEmail(db, profile.email, id);
      tookPhone = await claimPhone(db, profile.phone, id);
      await runCommand(ctx, userDecider, userStream(tenantId, id), { type: 'UpdateUser', userId: id, ...profile });
    } catch (error) {
      // Refused (a name, email or phone taken, not this tenant's user, ...): the new ones go back unless they already were the user's.
      await returnUnusedClaims(db, ctx.ports.lookups, id);
      await returnPhone(db, profile.phone, id, tookPhone);
      throw error;
    }
    await releaseUsernames(db, id, [profile.username, profile.email], profile.phone);
    const result = await runCommand(ctx, userDecider, userStream(tenantId, id), { type: 'SetUserStatus', userId: id, status });
    if (result.state.status === 'stopped') await revokeSubjectSessions(db, id);
    return { id };
  },

  async 'user.status'({ body }, ctx) {
    const { id, status } = body;
    await assertMayActOn(ctx, id);
    await runCommand(ctx, userDecider, userStream(callerOf(ctx).tenantId, id), { type: 'SetUserStatus', userId: id, status });
    // A stopped user is logged out everywhere at once.
    if (status === 'stopped') await revokeSubjectSessions(ctx.ports.db, id);
    return { id };
  },

  async 'user.delete'({ query }, ctx) {
    const { db } = ctx.ports;
    const { id } = query;
    await assertMayActOn(ctx, id);
    await runCommand(ctx, userDecider, userStream(callerOf(ctx).tenantId, id), { type: 'DeleteUser', userId: id });
    await revokeSubjectSessions(db, id);
    await db.query('delete from auth_credentials where subject_id = $1', [id]);
    await releaseUsernames(db, id);
    return { id };
  },

  async 'user.resetPassword'({ body }, ctx) {
    const { db } = ctx.ports;
    const { id, password } = body;
    const tenantId = callerOf(ctx).tenantId;
    await assertMayActOn(ctx, id);
    // The event first: it fails with NOT_FOUND for a user of another tenant before any secret is touched.
    await runCommand(ctx, userDecider, userStream(tenantId, id), { type: 'RecordPasswordChange', userId: id, byAdministrator: true });
    await setPassword(db, id, tenantId, password);
    await revokeSubjectSessions(db, id);
    return { id };
  },

  async 'user.changePassword'({ body }, ctx) {
    const { db } = ctx.ports;
    const self = selfOf(ctx);
    if (!(await verifyPassword(db, self.id, body.oldPassword))) throw new DomainError('PASSWORD_WRONG');
    await setPassword(db, self.id, self.tenantId, body.newPassword);
    await runCommand(ctx, userDecider, userStream(self.tenantId, self.id), {
      type: 'RecordPasswordChange',
      userId: self.id,
      byAdministrator: false,
    });
    // Every session of the user ends, this one included: they log in again with the new password.
    await revokeSubjectSessions(db, self.id);
    return null;
  },

  async 'user.checkPassword'({ body }, ctx) {
    const self = selfOf(ctx);
    // A stolen session must not become a password oracle: checks are throttled like logins.
    await reserveLoginAttempt(ctx.ports.db, `check:${self.id}`, ctx.ip);
    const valid = await verifyPassword(ctx.ports.db, self.id, body.password);
    if (valid) await clearLoginFailures(ctx.ports.db, `check:${self.id}`, ctx.ip);
    return { valid };
  },

  async 'user.updateProfile'({ body }, ctx) {
    const self = selfOf(ctx);
    const stream = userStream(self.tenantId, self.id);
    const { state } = await loadState(ctx.ports.store, userDecider, stream);
    if (!state.profile) throw new DomainError('NOT_FOUND');
    const profile: UserProfile = { ...state.profile, ...body };
    const { db } = ctx.ports;
    let tookPhone = false;
    try {
      await claimEmail(db, profile.email, self.id);
      tookPhone = await claimPhone(db, profile.phone, self.id);
      await runCommand(ctx, userDecider, stream, { type: 'UpdateUser', userId: self.id, ...profile });
    } catch (error) {
      await returnUnusedClaims(db, ctx.ports.lookups, self.id);
      await returnPhone(db, profile.phone, self.id, tookPhone);
      throw error;
    }
    await releaseUsernames(db, self.id, [profile.username, profile.email], profile.phone);
    return { id: self.id };
  },
};
