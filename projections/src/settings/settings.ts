import type { SettingsEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Each tenant's system name and logo version. */
export const settingsProjection = projection<SettingsEvent>({
  name: 'settings',
  handles: ['SystemNameChanged', 'SystemLogoChanged'],
  tables: ['rm_settings'],
  schema: `
    create table rm_settings (
      tenant_id text primary key,
      system_name text,
      logo_sha256 text,
      updated_at timestamptz not null
    );`,
  async apply(tx, event) {
    const [column, value] =
      event.type === 'SystemNameChanged' ? ['system_name', event.data.systemName] : ['logo_sha256', event.data.sha256];
    await tx.query(
      `insert into rm_settings (tenant_id, ${column}, updated_at) values ($1, $2, $3)
       on conflict (tenant_id) do update set ${column} = excluded.${column}, updated_at = excluded.updated_at`,
      [event.metadata.tenantId, value, event.metadata.occurredAt],
    );
  },
});
