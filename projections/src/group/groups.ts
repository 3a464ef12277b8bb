import type { GroupEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** The group tree of each tenant (spec §3 Group), the source of `stationId` data scoping. */
export const groupsProjection = projection<GroupEvent>({
  name: 'groups',
  handles: ['GroupCreated', 'GroupUpdated', 'GroupDeleted'],
  tables: ['rm_groups'],
  schema: `
    create table rm_groups (
      id text primary key,
      tenant_id text not null,
      parent_id text,
      name text not null,
      type text not null,
      location text,
      sort int not null,
      created_at timestamptz not null,
      created_by text not null,
      updated_at timestamptz not null
    );
    create index rm_groups_tenant on rm_groups (tenant_id, parent_id, sort);`,
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    switch (event.type) {
      case 'GroupCreated':
        await tx.query(
          `insert into rm_groups (id, tenant_id, parent_id, name, type, location, sort, created_at, created_by, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $8) on conflict (id) do nothing`,
          [
            event.data.groupId,
            event.metadata.tenantId,
            event.data.parentId,
            event.data.name,
            event.data.type,
            event.data.location,
            event.data.sort,
            at,
            event.metadata.actor.id,
          ],
        );
        return;
      case 'GroupUpdated':
        await tx.query(
          'update rm_groups set parent_id = $2, name = $3, type = $4, location = $5, sort = $6, updated_at = $7 where id = $1',
          [event.data.groupId, event.data.parentId, event.data.name, event.data.type, event.data.location, event.data.sort, at],
        );
        return;
      case 'GroupDeleted':
        await tx.query('delete from rm_groups where id = $1', [event.data.groupId]);
        return;
    }
  },
});
