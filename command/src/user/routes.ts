import { z } from 'zod';
import {
  DomainError,
  envelope,
  idBody,
  passwordChangeBody,
  passwordCheckBody,
  passwordResetBody,
  perm,
  profileBody,
  userCreateBody,
  userStatusBody,
  userUpdateBody,
} from '@iot/contracts';
import type { RoutesPlugin } from '@iot/query/server/app.ts';
import type { AppContext } from '@iot/query/server/context.ts';
import { ok } from '@iot/query/server/envelope.ts';
import { assertOwnRow } from '@iot/query/identity/access.ts';
import { principalOf } from '@iot/query/server/principal.ts';
import { newAggregateId } from '../handler.ts';
import { contextOf } from '../context.ts';
import { runCommand } from '../auth/commands.ts';
import { setPassword, verifyPassword } from '../auth/credentials.ts';
import { revokeSubjectSessions } from '../auth/sessions.ts';
import { userDecider, userStream } from './decide.ts';
import type { UserProfile } from './user.ts';
import { claimUsername, releaseUsernames } from './usernames.ts';

const idResult = envelope(z.object({ id: z.string() }));

/** The group and roles a user points to must be the caller's tenant's own. */
async function assertReferences(db: AppContext['db'], tenantId: string, groupId: string | null, roleIds: string[]): Promise<void> {
  if (groupId) await assertOwnRow(db, 'rm_groups', groupId, tenantId, 'groupId');
  const roles = await db.query('select id from rm_roles where id = any($1) and tenant_id = $2', [roleIds, tenantId]);
  if (roles.rowCount !== new Set(roleIds).size) throw new DomainError('NOT_FOUND', { field: 'roleIds' });
}

/** Users of a tenant (spec §3 User): create, edit, enable or stop, delete, passwords. */
export const userRoutes: RoutesPlugin = async (app, ctx) => {
  const { db, store } = ctx;

  app.post(
    '/api/auth/user',
    { config: { permission: perm.userAdd }, schema: { tags: ['user'], body: userCreateBody, response: { 200: idResult } } },
    async (request) => {
      const { password, status, ...profile } = request.body;
      const tenantId = principalOf(request).tenantId;
      await assertReferences(db, tenantId, profile.groupId, profile.roleIds);
      const userId = newAggregateId(contextOf(request));
      await claimUsername(db, profile.username, userId);
      try {
        await setPassword(db, userId, tenantId, password);
        await runCommand(ctx, request, userDecider, userStream(tenantId, userId), {
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
      return ok({ id: userId });
    },
  );

  app.put(
    '/api/auth/user',
    { config: { permission: perm.userEdit }, schema: { tags: ['user'], body: userUpdateBody, response: { 200: idResult } } },
    async (request) => {
      const { id, status, ...profile } = request.body;
      const tenantId = principalOf(request).tenantId;
      await assertReferences(db, tenantId, profile.groupId, profile.roleIds);
      await claimUsername(db, profile.username, id);
      try {
        await runCommand(ctx, request, userDecider, userStream(tenantId, id), { type: 'UpdateUser', userId: id, ...profile });
      } catch (error) {
        // Refused (not this tenant's user, ...): the new name goes back unless it already was the user's.
        await db.query(
          `delete from username_claims where owner = $1 and username = lower($2)
           and not exists (select 1 from rm_users where id = $1 and lower(username) = lower($2))`,
          [id, profile.username],
        );
        throw error;
      }
      await releaseUsernames(db, id, profile.username);
      const result = await runCommand(ctx, request, userDecider, userStream(tenantId, id), { type: 'SetUserStatus', userId: id, status });
      if (result.state.status === 'stopped') await revokeSubjectSessions(db, id);
      return ok({ id });
    },
  );

  app.put(
    '/api/auth/user/status',
    { config: { permission: perm.userEdit }, schema: { tags: ['user'], body: userStatusBody, response: { 200: idResult } } },
    async (request) => {
      const { id, status } = request.body;
      await runCommand(ctx, request, userDecider, userStream(principalOf(request).tenantId, id), {
        type: 'SetUserStatus',
        userId: id,
        status,
      });
      // A stopped user is logged out everywhere at once.
      if (status === 'stopped') await revokeSubjectSessions(db, id);
      return ok({ id });
    },
  );

  app.delete(
    '/api/auth/user',
    { config: { permission: perm.userDelete }, schema: { tags: ['user'], querystring: idBody, response: { 200: idResult } } },
    async (request) => {
      const { id } = request.query;
      await runCommand(ctx, request, userDecider, userStream(principalOf(request).tenantId, id), { type: 'DeleteUser', userId: id });
      await revokeSubjectSessions(db, id);
      await db.query('delete from auth_credentials where subject_id = $1', [id]);
      await releaseUsernames(db, id);
      return ok({ id });
    },
  );

  app.post(
    '/api/auth/user/password/reset',
    { config: { permission: perm.userResetPassword }, schema: { tags: ['user'], body: passwordResetBody, response: { 200: idResult } } },
    async (request) => {
      const { id, password } = request.body;
      const tenantId = principalOf(request).tenantId;
      // The event first: it fails with NOT_FOUND for a user of another tenant before any secret is touched.
      await runCommand(ctx, request, userDecider, userStream(tenantId, id), {
        type: 'RecordPasswordChange',
        userId: id,
        byAdministrator: true,
      });
      await setPassword(db, id, tenantId, password);
      await revokeSubjectSessions(db, id);
      return ok({ id });
    },
  );

  app.put(
    '/api/auth/user/password',
    {
      config: { permission: 'authenticated' },
      schema: { tags: ['user'], body: passwordChangeBody, response: { 200: envelope(z.null()) } },
    },
    async (request) => {
      const principal = principalOf(request);
      if (principal.kind !== 'user') throw new DomainError('FORBIDDEN');
      const { oldPassword, newPassword } = request.body;
      if (!(await verifyPassword(db, principal.id, oldPassword))) throw new DomainError('PASSWORD_WRONG');
      await setPassword(db, principal.id, principal.tenantId, newPassword);
      await runCommand(ctx, request, userDecider, userStream(principal.tenantId, principal.id), {
        type: 'RecordPasswordChange',
        userId: principal.id,
        byAdministrator: false,
      });
      // Every session of the user ends, this one included: they log in again with the new password.
      await revokeSubjectSessions(db, principal.id);
      return ok(null);
    },
  );

  app.post(
    '/api/auth/user/password/check',
    {
      config: { permission: 'authenticated' },
      schema: { tags: ['user'], body: passwordCheckBody, response: { 200: envelope(z.object({ valid: z.boolean() })) } },
    },
    async (request) => {
      const principal = principalOf(request);
      if (principal.kind !== 'user') throw new DomainError('FORBIDDEN');
      return ok({ valid: await verifyPassword(db, principal.id, request.body.password) });
    },
  );

  app.put(
    '/api/auth/user/profile',
    { config: { permission: 'authenticated' }, schema: { tags: ['user'], body: profileBody, response: { 200: idResult } } },
    async (request) => {
      const principal = principalOf(request);
      if (principal.kind !== 'user') throw new DomainError('FORBIDDEN');
      const stream = userStream(principal.tenantId, principal.id);
      const history = await store.readStream(stream);
      const state = history.reduce((s, e) => userDecider.evolve(s, e as never), userDecider.initialState);
      if (!state.profile) throw new DomainError('NOT_FOUND');
      const profile: UserProfile = { ...state.profile, ...request.body };
      await runCommand(ctx, request, userDecider, stream, { type: 'UpdateUser', userId: principal.id, ...profile });
      return ok({ id: principal.id });
    },
  );
};
