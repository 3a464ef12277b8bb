import type { Projection } from '../projection.ts';

/** Users as the login, the user list and the permission check read them. */
export const usersProjection: Projection = {
  name: 'users',
  handles: ['UserCreated'],
  tables: ['rm_users'],
  schema: `
    create table if not exists rm_users (
      id text primary key,
      tenant_id text not null,
      username text not null,
      email text,
      phone text,
      sex text not null,
      position text,
      group_id text,
      role_ids text[] not null default '{}',
      description text,
      home_page text,
      status text not null,
      is_system_admin boolean not null,
      is_tenant_admin boolean not null,
      created_at timestamptz not null,
      created_by text not null,
      updated_at timestamptz not null
    );
    create unique index if not exists rm_users_username on rm_users (lower(username));
    create index if not exists rm_users_email on rm_users (lower(email));
    create index if not exists rm_users_tenant on rm_users (tenant_id, created_at desc);`,
  async apply(tx, event) {
    switch (event.type) {
      case 'UserCreated': {
        const d = event.data as Record<string, unknown>;
        await tx.query(
          `insert into rm_users (id, tenant_id, username, email, phone, sex, position, group_id, role_ids, description, home_page,
             status, is_system_admin, is_tenant_admin, created_at, created_by, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'enabled', $12, $13, $14, $15, $14) on conflict (id) do nothing`,
          [
            d.userId, event.metadata.tenantId, d.username, d.email, d.phone, d.sex, d.position, d.groupId, d.roleIds,
            d.description, d.homePage, d.isSystemAdmin, d.isTenantAdmin, event.metadata.occurredAt, event.metadata.actor.id,
          ],
        );
        return;
      }
    }
  },
};
