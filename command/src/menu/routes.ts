import { z } from 'zod';
import { DomainError, envelope, idBody, menuCreateBody, menuOrderBody, menuUpdateBody, perm } from '@iot/contracts';
import type { RoutesPlugin } from '@iot/infra/http/app.ts';
import type { AppContext } from '@iot/infra/http/context.ts';
import { ok } from '@iot/infra/http/envelope.ts';
import { newAggregateId } from '../handler.ts';
import { contextOf } from '../context.ts';
import { runCommand } from '../auth/commands.ts';
import { menuDecider, menuStream } from './decide.ts';

const idResult = envelope(z.object({ id: z.string() }));

async function assertParent(db: AppContext['db'], parentId: string | null | undefined): Promise<void> {
  if (parentId && (await db.query('select 1 from rm_menus where id = $1', [parentId])).rowCount === 0)
    throw new DomainError('NOT_FOUND', { field: 'parentId' });
}

/** The platform's menu catalogue (spec §3 Menu, §5, §6): kept by the system administrator, granted to roles by tenants. */
export const menuRoutes: RoutesPlugin = async (app, ctx) => {
  const { db } = ctx;

  app.post(
    '/api/auth/menu',
    { config: { permission: perm.menuAdd }, schema: { tags: ['menu'], body: menuCreateBody, response: { 200: idResult } } },
    async (request) => {
      await assertParent(db, request.body.parentId);
      const menuId = newAggregateId(contextOf(request));
      await runCommand(ctx, request, menuDecider, menuStream(menuId), { type: 'CreateMenu', menuId, builtin: false, menu: request.body });
      return ok({ id: menuId });
    },
  );

  app.put(
    '/api/auth/menu',
    { config: { permission: perm.menuEdit }, schema: { tags: ['menu'], body: menuUpdateBody, response: { 200: idResult } } },
    async (request) => {
      const { id, ...menu } = request.body;
      await assertParent(db, menu.parentId);
      await runCommand(ctx, request, menuDecider, menuStream(id), { type: 'UpdateMenu', menuId: id, menu });
      return ok({ id });
    },
  );

  app.put(
    '/api/auth/menu/editOrder',
    {
      config: { permission: perm.menuEdit },
      schema: { tags: ['menu'], body: menuOrderBody, response: { 200: envelope(z.object({ count: z.number().int() })) } },
    },
    async (request) => {
      for (const item of request.body.items) await assertParent(db, item.parentId);
      const current = await db.query<{ id: string; parent_id: string | null }>('select id, parent_id from rm_menus where id = any($1)', [
        request.body.items.map((i) => i.id),
      ]);
      const parents = new Map(current.rows.map((r) => [r.id, r.parent_id]));
      for (const item of request.body.items) {
        if (!parents.has(item.id)) throw new DomainError('NOT_FOUND', { field: 'items.id' });
        const parentId = item.parentId === undefined ? (parents.get(item.id) ?? null) : item.parentId;
        await runCommand(ctx, request, menuDecider, menuStream(item.id), {
          type: 'ReorderMenu',
          menuId: item.id,
          sort: item.sort,
          parentId,
        });
      }
      return ok({ count: request.body.items.length });
    },
  );

  app.delete(
    '/api/auth/menu',
    { config: { permission: perm.menuDelete }, schema: { tags: ['menu'], querystring: idBody, response: { 200: idResult } } },
    async (request) => {
      const { id } = request.query;
      const children = await db.query('select 1 from rm_menus where parent_id = $1 limit 1', [id]);
      await runCommand(ctx, request, menuDecider, menuStream(id), { type: 'DeleteMenu', menuId: id, hasChildren: children.rowCount > 0 });
      // Roles keep the id of a deleted menu harmlessly: permissions join on existing menus only.
      return ok({ id });
    },
  );
};
