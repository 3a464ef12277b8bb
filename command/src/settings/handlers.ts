import { createHash } from 'node:crypto';
import { DomainError, PNG_HEAD_BYTES, type SettingsRoutes } from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { runCommand } from '../request.ts';
import { settingsDecider, settingsStream, type SettingsCommand } from './decide.ts';
import { storeLogo } from './logos.ts';

/** System settings of a tenant (spec §2): system name and logo (PNG, at most 2 MB). */
export const settingsHandlers: Pick<Handlers<SettingsRoutes>, 'settings.update' | 'settings.uploadLogo'> = {
  async 'settings.update'({ body }, ctx) {
    await runCommand(ctx, settingsDecider, settingsStream(callerOf(ctx).tenantId), {
      type: 'ChangeSystemName',
      systemName: body.systemName,
    });
    return null;
  },

  async 'settings.uploadLogo'(input, ctx) {
    // The route consumes raw bytes (consumes: 'image/png'): anything else, a JSON body or none, is not a PNG.
    const file: unknown = input.body;
    if (!(file instanceof Uint8Array)) throw new DomainError('LOGO_NOT_PNG');
    const sha256 = createHash('sha256').update(file).digest('hex');
    const command: SettingsCommand = { type: 'ChangeSystemLogo', sha256, bytes: file.length, head: [...file.subarray(0, PNG_HEAD_BYTES)] };
    // The decider judges size and format before any byte is stored.
    settingsDecider.decide(command, settingsDecider.initialState);
    await storeLogo(ctx.ports.db, sha256, file);
    await runCommand(ctx, settingsDecider, settingsStream(callerOf(ctx).tenantId), command);
    return { logo: sha256 };
  },
};
