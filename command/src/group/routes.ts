import { z } from 'zod';
import { DomainError, envelope, groupCreateBody, groupUpdateBody, idBody, perm } from '@iot/contracts';
import type { RoutesPlugin } from '@iot/infra/http/app.ts';
import type { AppContext } from '@iot/infra/http/context.ts';
import { ok } from '@iot/infra/http/envelope.ts';
import { assertOwnRow } from '@iot/query/shared/lookups.ts';
import { principalOf } from '@iot/infra/http/principal.ts';
import { newAggregateId } from '../handler.ts';
import { contextOf } from '../context.ts';
import { isRootUser, runCommand } from '../auth/commands.ts';
import { groupDecider, groupStream } from './decide.ts';

const idResult = envelope(z.object({ id: z.string() }));

async function assertParent(db: AppContext['db'], tenantId: string, parentId: string | null, groupId?: string): Promise<void> {
  if (!parentId) return;
  await assertOwnRow(db, 'rm_groups', parentId, tenantId, 'parentId');
  if (!groupId) return;
  // A group cannot move under its own subtree.
  const cycle = await db.query(
    `with recursive up(id, parent_id) as (select id, parent_id from rm_groups where id = $1 and tenant_id = $3
       union select g.id, g.parent_id from rm_groups g join up on g.id = up.parent_id where g.tenant_id = $3)
     select 1 from up where id = $2`,
    [parentId, groupId, tenantId],
  );
  if (cycle.rowCount > 0)
    throw new DomainError('VALIDATION', { fields: [{ field: 'body.parentId', message: 'a group cannot move under itself' }] });
}

/** The group tree of a tenant (spec §3 Group, §5 root group rule). */
export const groupRoutes: RoutesPlugin = async (app, ctx) => {
  const { db } = ctx;

  app.post(
    '/api/auth/dept',
    { config: { permission: perm.groupAdd }, schema: { tags: ['dept'], body: groupCreateBody, response: { 200: idResult } } },
    async (request) => {
      const principal = principalOf(request);
      await assertParent(db, principal.tenantId, request.body.parentId);
      const groupId = newAggregateId(contextOf(request));
      const { name, type, location, sort, parentId } = request.body;
      await runCommand(ctx, request, groupDecider, groupStream(principal.tenantId, groupId), {
        type: 'CreateGroup',
        groupId,
        byTenantAdmin: isRootUser(principal),
        group: { name, type, location, sort, parentId },
      });
      return ok({ id: groupId });
    },
  );

  app.put(
    '/api/auth/dept',
    { config: { permission: perm.groupEdit }, schema: { tags: ['dept'], body: groupUpdateBody, response: { 200: idResult } } },
    async (request) => {
      const principal = principalOf(request);
      const { id, name, type, location, sort, parentId } = request.body;
      await assertParent(db, principal.tenantId, parentId, id);
      await runCommand(ctx, request, groupDecider, groupStream(principal.tenantId, id), {
        type: 'UpdateGroup',
        groupId: id,
        byTenantAdmin: isRootUser(principal),
        group: { name, type, location, sort, parentId },
      });
      return ok({ id });
    },
  );

  app.delete(
    '/api/auth/dept',
    { config: { permission: perm.groupDelete }, schema: { tags: ['dept'], querystring: idBody, response: { 200: idResult } } },
    async (request) => {
      const principal = principalOf(request);
      const { id } = request.query;
      const children = await db.query('select 1 from rm_groups where parent_id = $1 and tenant_id = $2 limit 1', [id, principal.tenantId]);
      const users = await db.query('select 1 from rm_users where group_id = $1 and tenant_id = $2 limit 1', [id, principal.tenantId]);
      await runCommand(ctx, request, groupDecider, groupStream(principal.tenantId, id), {
        type: 'DeleteGroup',
        groupId: id,
        byTenantAdmin: isRootUser(principal),
        hasChildren: children.rowCount > 0,
        hasUsers: users.rowCount > 0,
      });
      return ok({ id });
    },
  );
};
