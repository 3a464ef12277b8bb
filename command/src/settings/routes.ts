import { createHash } from 'node:crypto';
import { z } from 'zod';
import { DomainError, envelope, limits, perm, settingsBody } from '@iot/contracts';
import type { RoutesPlugin } from '@iot/infra/http/app.ts';
import { ok } from '@iot/infra/http/envelope.ts';
import { principalOf } from '@iot/infra/http/principal.ts';
import { runCommand } from '../auth/commands.ts';
import { settingsDecider, settingsStream } from './decide.ts';

/** Logo bytes, content-addressed: an event names the logo by its SHA-256, the bytes stay out of the log. */
export const logoSchema = `
create table if not exists settings_logos (
  sha256 text primary key,
  png bytea not null,
  created_at timestamptz not null default now()
);`;

/** Room above the 2 MB limit so that a slightly larger file is answered with LOGO_TOO_LARGE, not a generic error. */
const LOGO_BODY_LIMIT = limits.logo.maxBytes * 4;

/** System settings of a tenant (spec §2): system name and logo (PNG, at most 2 MB). */
export const settingsRoutes: RoutesPlugin = async (app, ctx) => {
  const { db } = ctx;
  await db.query(logoSchema);
  // The logo is posted as the raw file (Content-Type image/...), as a browser's fetch(file) sends it.
  app.addContentTypeParser(/^image\/.*/, { parseAs: 'buffer', bodyLimit: LOGO_BODY_LIMIT }, (_request, body, done) => done(null, body));
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: LOGO_BODY_LIMIT }, (_request, body, done) =>
    done(null, body),
  );

  app.put(
    '/api/auth/settings',
    {
      config: { permission: perm.settingsEdit },
      schema: { tags: ['settings'], body: settingsBody, response: { 200: envelope(z.null()) } },
    },
    async (request) => {
      await runCommand(ctx, request, settingsDecider, settingsStream(principalOf(request).tenantId), {
        type: 'ChangeSystemName',
        systemName: request.body.systemName,
      });
      return ok(null);
    },
  );

  app.post(
    '/api/auth/settings/logo',
    {
      config: { permission: perm.settingsEdit },
      bodyLimit: LOGO_BODY_LIMIT,
      schema: {
        tags: ['settings'],
        description: 'The PNG file as the raw request body (Content-Type image/png), at most 2 MB.',
        response: { 200: envelope(z.object({ logo: z.string() })) },
      },
    },
    async (request) => {
      const body = request.body;
      if (!Buffer.isBuffer(body)) throw new DomainError('LOGO_NOT_PNG');
      const sha256 = createHash('sha256').update(body).digest('hex');
      const command = { type: 'ChangeSystemLogo' as const, sha256, bytes: body.length, head: [...body.subarray(0, 8)] };
      // The decider judges size and format before any byte is stored.
      settingsDecider.decide(command, settingsDecider.initialState);
      await db.query('insert into settings_logos (sha256, png) values ($1, $2) on conflict (sha256) do nothing', [sha256, body]);
      await runCommand(ctx, request, settingsDecider, settingsStream(principalOf(request).tenantId), command);
      return ok({ logo: sha256 });
    },
  );
};
