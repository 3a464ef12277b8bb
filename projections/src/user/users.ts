import type { UserEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Users as the login, the user list and the permission check read them. */
export const usersProjection = projection<UserEvent>({
  name: 'users',
  handles: ['UserCreated', 'UserUpdated', 'UserStopped', 'UserEnabled', 'UserDeleted', 'UserPasswordChanged'],
  tables: ['rm_users'],
  schema: `
    create table rm_users (
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
      updated_at timestamptz not null,
      password_changed_at timestamptz
    );
    -- Not unique: uniqueness is claimed before the event is appended (command/src/user/usernames.ts); a read
    -- model that refused an event would stop projecting.
    create index rm_users_username on rm_users (lower(username));
    create index rm_users_email on rm_users (lower(email));
    create index rm_users_tenant on rm_users (tenant_id, created_at desc);
    create index rm_users_roles on rm_users using gin (role_ids);`,
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    switch (event.type) {
      case 'UserCreated':
        // A username taken meanwhile (a race the route's check missed) must not stall the projection.
        await tx.query(
          `insert into rm_users (id, tenant_id, username, email, phone, sex, position, group_id, role_ids, description, home_page,
             status, is_system_admin, is_tenant_admin, created_at, created_by, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'enabled', $12, $13, $14, $15, $14) on conflict do nothing`,
          [
            event.data.userId,
            event.metadata.tenantId,
            event.data.username,
            event.data.email,
            event.data.phone,
            event.data.sex,
            event.data.position,
            event.data.groupId,
            event.data.roleIds,
            event.data.description,
            event.data.homePage,
            event.data.isSystemAdmin,
            event.data.isTenantAdmin,
            at,
            event.metadata.actor.id,
          ],
        );
        return;
      case 'UserUpdated':
        await tx.query(
          `update rm_users set username = $2, email = $3, phone = $4, sex = $5, position = $6, group_id = $7, role_ids = $8,
             description = $9, home_page = $10, updated_at = $11 where id = $1`,
          [
            event.data.userId,
            event.data.username,
            event.data.email,
            event.data.phone,
            event.data.sex,
            event.data.position,
            event.data.groupId,
            event.data.roleIds,
            event.data.description,
            event.data.homePage,
            at,
          ],
        );
        return;
      case 'UserStopped':
      case 'UserEnabled':
        await tx.query('update rm_users set status = $2, updated_at = $3 where id = $1', [
          event.data.userId,
          event.type === 'UserStopped' ? 'stopped' : 'enabled',
          at,
        ]);
        return;
      case 'UserDeleted':
        await tx.query('delete from rm_users where id = $1', [event.data.userId]);
        return;
      case 'UserPasswordChanged':
        await tx.query('update rm_users set password_changed_at = $2 where id = $1', [event.data.userId, at]);
        return;
    }
  },
});
