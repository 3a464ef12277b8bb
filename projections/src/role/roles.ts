import type { RoleEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Roles of each tenant with the menus they grant: the source of every permission check. */
export const rolesProjection = projection<RoleEvent>({
  name: 'roles',
  handles: ['RoleCreated', 'RoleUpdated', 'RoleMenusGranted', 'RoleDeleted'],
  tables: ['rm_roles'],
  schema: `
    create table rm_roles (
      id text primary key,
      tenant_id text not null,
      name text not null,
      remark text,
      menu_ids text[] not null default '{}',
      builtin text,
      created_at timestamptz not null,
      created_by text not null,
      updated_at timestamptz not null
    );
    create index rm_roles_tenant on rm_roles (tenant_id, lower(name));`,
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    switch (event.type) {
      case 'RoleCreated':
        await tx.query(
          `insert into rm_roles (id, tenant_id, name, remark, menu_ids, builtin, created_at, created_by, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $7) on conflict (id) do nothing`,
          [
            event.data.roleId,
            event.metadata.tenantId,
            event.data.name,
            event.data.remark,
            event.data.menuIds,
            event.data.builtin,
            at,
            event.metadata.actor.id,
          ],
        );
        return;
      case 'RoleUpdated':
        await tx.query('update rm_roles set name = $2, remark = $3, updated_at = $4 where id = $1', [
          event.data.roleId,
          event.data.name,
          event.data.remark,
          at,
        ]);
        return;
      case 'RoleMenusGranted':
        await tx.query('update rm_roles set menu_ids = $2, updated_at = $3 where id = $1', [event.data.roleId, event.data.menuIds, at]);
        return;
      case 'RoleDeleted':
        await tx.query('delete from rm_roles where id = $1', [event.data.roleId]);
        return;
    }
  },
});
