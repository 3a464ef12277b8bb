import { DomainError, type MenuRoutes } from '@iot/contracts';
import type { Handlers, RequestContext } from '@iot/contracts/http/handler.ts';
import { newAggregateId } from '../handler.ts';
import { commandContextOf, runCommand } from '../request.ts';
import { menuDecider, menuStream } from './decide.ts';

async function assertParent(ctx: RequestContext, parentId: string | null | undefined): Promise<void> {
  if (parentId && (await ctx.ports.lookups.menusByIds([parentId])).length === 0) throw new DomainError('NOT_FOUND', { field: 'parentId' });
}

/** The platform's menu catalogue (spec §3 Menu, §5, §6): kept by the system administrator, granted to roles by tenants. */
export const menuHandlers: Pick<Handlers<MenuRoutes>, 'menu.create' | 'menu.update' | 'menu.reorder' | 'menu.delete'> = {
  async 'menu.create'({ body }, ctx) {
    await assertParent(ctx, body.parentId);
    const menuId = newAggregateId(commandContextOf(ctx));
    await runCommand(ctx, menuDecider, menuStream(menuId), { type: 'CreateMenu', menuId, builtin: false, menu: body });
    return { id: menuId };
  },

  async 'menu.update'({ body }, ctx) {
    const { id, ...menu } = body;
    await assertParent(ctx, menu.parentId);
    await runCommand(ctx, menuDecider, menuStream(id), { type: 'UpdateMenu', menuId: id, menu });
    return { id };
  },

  async 'menu.reorder'({ body }, ctx) {
    for (const item of body.items) await assertParent(ctx, item.parentId);
    const current = await ctx.ports.lookups.menusByIds(body.items.map((i) => i.id));
    const parents = new Map(current.map((m) => [m.id, m.parentId]));
    for (const item of body.items) {
      if (!parents.has(item.id)) throw new DomainError('NOT_FOUND', { field: 'items.id' });
      const parentId = item.parentId === undefined ? (parents.get(item.id) ?? null) : item.parentId;
      await runCommand(ctx, menuDecider, menuStream(item.id), { type: 'ReorderMenu', menuId: item.id, sort: item.sort, parentId });
    }
    return { count: body.items.length };
  },

  async 'menu.delete'({ query }, ctx) {
    const { id } = query;
    const hasChildren = await ctx.ports.lookups.menuHasChildren(id);
    await runCommand(ctx, menuDecider, menuStream(id), { type: 'DeleteMenu', menuId: id, hasChildren });
    // Roles keep the id of a deleted menu harmlessly: permissions join on existing menus only.
    return { id };
  },
};
