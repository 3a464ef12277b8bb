import type { ScreenEvent } from '@iot/contracts';
import { add, patch, recordProjection, remove } from '../shared/record.ts';

/** Big screens of each tenant (widgets as one JSON document) and their share links (token hash, expiry, revocation). */
export const screensProjection = recordProjection<ScreenEvent>({
  name: 'screens',
  handles: ['ScreenCreated', 'ScreenRenamed', 'ScreenLayoutSaved', 'ScreenDeleted', 'ScreenShared', 'ScreenShareRevoked'],
  tables: ['rm_screens', 'rm_screen_shares'],
  schema: `
    create table rm_screens (
      id text primary key,
      tenant_id text not null,
      name text not null,
      widgets jsonb not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index rm_screens_tenant on rm_screens (tenant_id, created_at desc);
    create table rm_screen_shares (
      id text primary key,
      tenant_id text not null,
      screen_id text not null,
      token_hash text not null,
      expires_at timestamptz not null,
      revoked_at timestamptz,
      station_id text,
      created_at timestamptz not null
    );
    create index rm_screen_shares_screen on rm_screen_shares (screen_id, created_at desc);`,
  migrations: [{ version: 2, name: 'the sharer’s station', sql: `alter table rm_screen_shares add column if not exists station_id text;` }],
  rows(event) {
    const at = event.metadata.occurredAt;
    switch (event.type) {
      case 'ScreenCreated': {
        const d = event.data;
        const row = {
          id: d.screenId,
          tenant_id: event.metadata.tenantId,
          name: d.name,
          widgets: d.widgets,
          created_at: at,
          updated_at: at,
        };
        return [add('rm_screens', row)];
      }
      case 'ScreenRenamed':
        return [patch('rm_screens', event.data.screenId, { name: event.data.name, updated_at: at })];
      case 'ScreenLayoutSaved':
        return [patch('rm_screens', event.data.screenId, { widgets: event.data.widgets, updated_at: at })];
      case 'ScreenDeleted':
        return [remove('rm_screen_shares', { screen_id: event.data.screenId }), remove('rm_screens', { id: event.data.screenId })];
      case 'ScreenShared': {
        const d = event.data;
        return [
          add('rm_screen_shares', {
            id: d.shareId,
            tenant_id: event.metadata.tenantId,
            screen_id: d.screenId,
            token_hash: d.tokenHash,
            expires_at: d.expiresAt,
            station_id: d.stationId ?? null,
            created_at: at,
          }),
        ];
      }
      case 'ScreenShareRevoked':
        return [patch('rm_screen_shares', event.data.shareId, { revoked_at: at })];
    }
  },
});
