import type { ScreenEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Big screens of each tenant (widgets as one JSON document) and their share links (token hash, expiry, revocation). */
export const screensProjection = projection<ScreenEvent>({
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
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    const { tenantId } = event.metadata;
    switch (event.type) {
      case 'ScreenCreated': {
        const d = event.data;
        await tx.query(
          `insert into rm_screens (id, tenant_id, name, widgets, created_at, updated_at) values ($1, $2, $3, $4::jsonb, $5, $5)
           on conflict (id) do nothing`,
          [d.screenId, tenantId, d.name, JSON.stringify(d.widgets), at],
        );
        return;
      }
      case 'ScreenRenamed':
        await tx.query('update rm_screens set name = $2, updated_at = $3 where id = $1', [event.data.screenId, event.data.name, at]);
        return;
      case 'ScreenLayoutSaved':
        await tx.query('update rm_screens set widgets = $2::jsonb, updated_at = $3 where id = $1', [
          event.data.screenId,
          JSON.stringify(event.data.widgets),
          at,
        ]);
        return;
      case 'ScreenDeleted':
        await tx.query('delete from rm_screen_shares where screen_id = $1', [event.data.screenId]);
        await tx.query('delete from rm_screens where id = $1', [event.data.screenId]);
        return;
      case 'ScreenShared': {
        const d = event.data;
        await tx.query(
          `insert into rm_screen_shares (id, tenant_id, screen_id, token_hash, expires_at, station_id, created_at)
           values ($1, $2, $3, $4, $5, $6, $7) on conflict (id) do nothing`,
          [d.shareId, tenantId, d.screenId, d.tokenHash, d.expiresAt, d.stationId ?? null, at],
        );
        return;
      }
      case 'ScreenShareRevoked':
        await tx.query('update rm_screen_shares set revoked_at = $2 where id = $1', [event.data.shareId, at]);
        return;
    }
  },
});
