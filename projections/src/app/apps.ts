import type { AppEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Apps and their keys (never their secrets) with OAuth scope and sharing. */
export const appsProjection = projection<AppEvent>({
  name: 'apps',
  handles: ['AppCreated', 'AppUpdated', 'AppSecretRotated', 'AppDeleted'],
  tables: ['rm_apps'],
  schema: `
    create table rm_apps (
      id text primary key,
      tenant_id text not null,
      owner_id text not null,
      app_key text not null,
      type text not null,
      name text not null,
      scope text[] not null,
      sharing text not null,
      status text not null,
      remark text,
      created_at timestamptz not null,
      secret_rotated_at timestamptz,
      updated_at timestamptz not null
    );
    create unique index rm_apps_key on rm_apps (app_key);
    create index rm_apps_tenant on rm_apps (tenant_id, created_at desc);`,
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    switch (event.type) {
      case 'AppCreated': {
        const d = event.data;
        await tx.query(
          `insert into rm_apps (id, tenant_id, owner_id, app_key, type, name, scope, sharing, status, remark, created_at, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, 'enabled', $9, $10, $10) on conflict do nothing`,
          [d.appId, event.metadata.tenantId, d.ownerId, d.appKey, d.type, d.name, d.scope, d.sharing, d.remark, at],
        );
        return;
      }
      case 'AppUpdated': {
        const d = event.data;
        await tx.query(
          'update rm_apps set type = $2, name = $3, scope = $4, sharing = $5, status = $6, remark = $7, updated_at = $8 where id = $1',
          [d.appId, d.type, d.name, d.scope, d.sharing, d.status, d.remark, at],
        );
        return;
      }
      case 'AppSecretRotated':
        await tx.query('update rm_apps set secret_rotated_at = $2, updated_at = $2 where id = $1', [event.data.appId, at]);
        return;
      case 'AppDeleted':
        await tx.query('delete from rm_apps where id = $1', [event.data.appId]);
        return;
    }
  },
});
