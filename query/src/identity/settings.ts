import type { FastifyReply } from 'fastify';
import { DEFAULT_SYSTEM_NAME, DomainError, envelope, SYSTEM_TENANT, systemSettings } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { RoutesPlugin } from '@iot/infra/http/app.ts';
import { ok } from '@iot/infra/http/envelope.ts';
import { principalOf } from '@iot/infra/http/principal.ts';
import { isoOrNull } from '../shared/paging.ts';

/** A tenant's settings, falling back to the platform's (system tenant) for what the tenant has not set. */
async function settingsOf(db: Sql, tenantId: string) {
  const rows = await db.query<{ tenant_id: string; system_name: string | null; logo_sha256: string | null; updated_at: Date }>(
    'select * from rm_settings where tenant_id = any($1)',
    [[tenantId, SYSTEM_TENANT]],
  );
  const own = rows.rows.find((r) => r.tenant_id === tenantId);
  const platform = rows.rows.find((r) => r.tenant_id === SYSTEM_TENANT);
  return {
    systemName: own?.system_name ?? platform?.system_name ?? DEFAULT_SYSTEM_NAME,
    logo: own?.logo_sha256 ?? platform?.logo_sha256 ?? null,
    updatedAt: isoOrNull(own?.updated_at ?? platform?.updated_at),
  };
}

/** System settings (name and logo) and the logo itself. The browser scales the logo to height 30. */
export const settingsQueryRoutes: RoutesPlugin = async (app, { db }) => {
  // Every screen's shell shows its tenant's name and logo, so any logged-in user may read them.
  app.get(
    '/api/auth/settings',
    { config: { permission: 'authenticated' }, schema: { tags: ['settings'], response: { 200: envelope(systemSettings) } } },
    async (request) => ok(await settingsOf(db, principalOf(request).tenantId)),
  );

  // The login and registration pages show the platform's name and logo before anyone is logged in.
  app.get(
    '/api/auth/settings/public',
    { config: { permission: 'public' }, schema: { tags: ['settings'], response: { 200: envelope(systemSettings) } } },
    async () => ok(await settingsOf(db, SYSTEM_TENANT)),
  );

  app.get(
    '/api/auth/settings/public/logo',
    { config: { permission: 'public' }, schema: { tags: ['settings'], description: "The platform's logo PNG, for the login page." } },
    async (_request, reply) => sendLogo(reply, (await settingsOf(db, SYSTEM_TENANT)).logo),
  );

  app.get(
    '/api/auth/userLogo',
    {
      config: { permission: 'authenticated' },
      schema: { tags: ['settings'], description: "The logo PNG of the caller's tenant (or the platform's)." },
    },
    async (request, reply) => sendLogo(reply, (await settingsOf(db, principalOf(request).tenantId)).logo),
  );

  async function sendLogo(reply: FastifyReply, logo: string | null) {
    const row = logo ? (await db.query<{ png: Buffer }>('select png from settings_logos where sha256 = $1', [logo])).rows[0] : undefined;
    if (!row) throw new DomainError('NOT_FOUND');
    return reply
      .header('content-type', 'image/png')
      .header('cache-control', 'private, max-age=300')
      .header('etag', `"${logo}"`)
      .send(row.png);
  }
};
