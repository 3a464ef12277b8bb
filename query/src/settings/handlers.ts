import { DEFAULT_SYSTEM_NAME, DomainError, SYSTEM_TENANT, type SettingsRoutes, type SystemSettings } from '@iot/contracts';
import { rawAnswer } from '@iot/contracts/http/route.ts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { settingsOfTenants } from '@iot/projections/settings/read.ts';

/** A tenant's settings, falling back to the platform's (system tenant) for what the tenant has not set. */
async function settingsOf(db: Sql, tenantId: string): Promise<SystemSettings> {
  const records = await settingsOfTenants(db, [tenantId, SYSTEM_TENANT]);
  const own = records.find((r) => r.tenantId === tenantId);
  const platform = records.find((r) => r.tenantId === SYSTEM_TENANT);
  return {
    systemName: own?.systemName ?? platform?.systemName ?? DEFAULT_SYSTEM_NAME,
    logo: own?.logoSha256 ?? platform?.logoSha256 ?? null,
    updatedAt: (own ?? platform)?.updatedAt.toISOString() ?? null,
  };
}

/** The logo's bytes, always as a PNG: the browser must not guess another type from them. */
async function logoOf(db: Sql, logo: string | null) {
  const row = logo ? (await db.query<{ png: Uint8Array }>('select png from settings_logos where sha256 = $1', [logo])).rows[0] : undefined;
  if (!row) throw new DomainError('NOT_FOUND');
  return rawAnswer('image/png', row.png, undefined, {
    'cache-control': 'private, max-age=300',
    etag: `"${logo}"`,
    'x-content-type-options': 'nosniff',
  });
}

/** System settings (name and logo) and the logo itself. The browser scales the logo to height 30. */
export const settingsQueryHandlers: Pick<
  Handlers<SettingsRoutes>,
  'settings.get' | 'settings.public' | 'settings.publicLogo' | 'settings.userLogo'
> = {
  'settings.get': (_input, ctx) => settingsOf(ctx.ports.db, callerOf(ctx).tenantId),
  'settings.public': (_input, ctx) => settingsOf(ctx.ports.db, SYSTEM_TENANT),
  'settings.publicLogo': async (_input, ctx) => logoOf(ctx.ports.db, (await settingsOf(ctx.ports.db, SYSTEM_TENANT)).logo),
  'settings.userLogo': async (_input, ctx) => logoOf(ctx.ports.db, (await settingsOf(ctx.ports.db, callerOf(ctx).tenantId)).logo),
};
