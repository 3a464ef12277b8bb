import type { MenuEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** The platform's menu catalogue: menus, buttons, interfaces, tabs and app menus with their permissions. */
export const menusProjection = projection<MenuEvent>({
  name: 'menus',
  handles: ['MenuCreated', 'MenuUpdated', 'MenuReordered', 'MenuDeleted'],
  tables: ['rm_menus'],
  schema: `
    create table rm_menus (
      id text primary key,
      parent_id text,
      type text not null,
      name text not null,
      router_name text,
      icon text,
      permission text,
      path text not null,
      component text,
      sort int not null,
      builtin boolean not null,
      updated_at timestamptz not null
    );
    create index rm_menus_parent on rm_menus (parent_id, sort);
    create index rm_menus_permission on rm_menus (permission);`,
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    switch (event.type) {
      case 'MenuCreated':
        await tx.query(
          `insert into rm_menus (id, parent_id, type, name, router_name, icon, permission, path, component, sort, builtin, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) on conflict (id) do nothing`,
          [
            event.data.menuId,
            event.data.parentId,
            event.data.type,
            event.data.name,
            event.data.routerName,
            event.data.icon,
            event.data.permission,
            event.data.path,
            event.data.component,
            event.data.sort,
            event.data.builtin,
            at,
          ],
        );
        return;
      case 'MenuUpdated':
        await tx.query(
          `update rm_menus set parent_id = $2, type = $3, name = $4, router_name = $5, icon = $6, permission = $7, path = $8, component = $9,
             sort = $10, updated_at = $11 where id = $1`,
          [
            event.data.menuId,
            event.data.parentId,
            event.data.type,
            event.data.name,
            event.data.routerName,
            event.data.icon,
            event.data.permission,
            event.data.path,
            event.data.component,
            event.data.sort,
            at,
          ],
        );
        return;
      case 'MenuReordered':
        await tx.query('update rm_menus set sort = $2, parent_id = $3, updated_at = $4 where id = $1', [
          event.data.menuId,
          event.data.sort,
          event.data.parentId,
          at,
        ]);
        return;
      case 'MenuDeleted':
        await tx.query('delete from rm_menus where id = $1', [event.data.menuId]);
        return;
    }
  },
});
