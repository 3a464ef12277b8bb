import { z } from 'zod';
import { route } from '../http/route.ts';
import { perm } from '../identity/permissions.ts';
import { settingsBody, systemSettings } from '../identity/settings.ts';

/** `v`: the logo's version, so that a new logo is a new URL for the browser's cache. */
const logoQuery = z.object({ v: z.string().max(128).optional() }).strict();
const tag = 'settings';
/** The logo's bytes: the answer is the PNG itself, not the envelope. */
const png = z.unknown().describe('The PNG file');

/** System settings of a tenant (spec §2): system name and logo (PNG, at most 2 MB, shown 30 px high). */
export const settingsRoutes = {
  'settings.update': route({
    method: 'PUT',
    path: '/api/auth/settings',
    permission: perm.settingsEdit,
    tag,
    summary: 'Change the system name',
    body: settingsBody,
    response: z.null(),
    reads: ['settings'],
  }),
  'settings.uploadLogo': route({
    method: 'POST',
    path: '/api/auth/settings/logo',
    permission: perm.settingsEdit,
    tag,
    summary: 'Change the logo: the PNG file as the raw request body (Content-Type image/png), at most 2 MB',
    consumes: 'image/png',
    response: z.object({ logo: z.string() }),
    reads: ['settings'],
    errors: ['LOGO_TOO_LARGE', 'LOGO_NOT_PNG'],
  }),
  // Every screen's shell shows its tenant's name and logo, so any logged-in user may read them.
  'settings.get': route({
    method: 'GET',
    path: '/api/auth/settings',
    permission: 'authenticated',
    tag,
    summary: "The caller's tenant's system name and logo version (the platform's where the tenant set none)",
    response: systemSettings,
    reads: ['settings'],
  }),
  // The login and registration pages show the platform's name and logo before anyone is logged in.
  'settings.public': route({
    method: 'GET',
    path: '/api/auth/settings/public',
    permission: 'public',
    tag,
    summary: "The platform's system name and logo version",
    response: systemSettings,
    reads: ['settings'],
  }),
  'settings.publicLogo': route({
    method: 'GET',
    path: '/api/auth/settings/public/logo',
    permission: 'public',
    tag,
    summary: "The platform's logo PNG, for the login page",
    produces: 'image/png',
    query: logoQuery,
    response: png,
    reads: ['settings'],
    errors: ['NOT_FOUND'],
  }),
  'settings.userLogo': route({
    method: 'GET',
    path: '/api/auth/userLogo',
    permission: 'authenticated',
    tag,
    summary: "The logo PNG of the caller's tenant (or the platform's)",
    produces: 'image/png',
    query: logoQuery,
    response: png,
    reads: ['settings'],
    errors: ['NOT_FOUND'],
  }),
};
export type SettingsRoutes = typeof settingsRoutes;
