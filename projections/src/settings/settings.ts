import type { Projection } from '../projection.ts';

/** Each tenant's system name and logo version. */
export const settingsProjection: Projection = {
  name: 'settings',
  handles: ['SystemNameChanged', 'SystemLogoChanged'],
  tables: ['rm_settings'],
  schema: `
    create table if not exists rm_settings (
      tenant_id text primary key,
      system_name text,
      logo_sha256 text,
      updated_at timestamptz not null
    );`,
  async apply(tx, event) {
    const d = event.data as Record<string, unknown>;
    const column = event.type === 'SystemNameChanged' ? 'system_name' : 'logo_sha256';
    const value = event.type === 'SystemNameChanged' ? d.systemName : d.sha256;
    await tx.query(
      `insert into rm_settings (tenant_id, ${column}, updated_at) values ($1, $2, $3)
       on conflict (tenant_id) do update set ${column} = excluded.${column}, updated_at = excluded.updated_at`,
      [event.metadata.tenantId, value, event.metadata.occurredAt],
    );
  },
};
