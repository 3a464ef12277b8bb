import {
  DomainError,
  notifySecretKeys,
  type AlarmRoutes,
  type NotifySecretKey,
  type NotifySettingsEvent,
  type NotifySettingsFields,
} from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import { sameValue, type Decider } from '../decider.ts';
import { runCommand } from '../request.ts';

/**
 * A tenant's channel credentials live beside the event log, never in it (an immutable log would keep an old
 * key forever, and an export of it would carry them), as MQTT config passwords do.
 */
export const notifySecretsSchema = `
create table notify_channel_secrets (
  tenant_id text primary key,
  secrets jsonb not null default '{}',
  updated_at timestamptz not null default now()
);`;

export type NotifySettingsCommand = { type: 'SaveNotifySettings'; fields: NotifySettingsFields; secretsChanged: NotifySecretKey[] };
export interface NotifySettingsState {
  fields: NotifySettingsFields | null;
}

/** One settings aggregate per tenant: an edit that changes nothing (no field, no credential) appends nothing. */
export const notifySettingsDecider: Decider<NotifySettingsCommand, NotifySettingsEvent, NotifySettingsState> = {
  initialState: { fields: null },
  evolve(_state, event) {
    const { secretsChanged: _changed, ...fields } = event.data;
    return { fields };
  },
  decide(command, state) {
    if (command.secretsChanged.length === 0 && state.fields && sameValue(command.fields, state.fields)) return [];
    return [{ type: 'NotifySettingsUpdated', data: { ...command.fields, secretsChanged: command.secretsChanged } }];
  },
};
export const notifySettingsStream = (tenantId: string) => `notifySettings-${tenantId}.${tenantId}`;

/** The tenant's stored credentials (the delivery worker's, never an answer's). */
export async function storedSecrets(ctx: RequestContext, tenantId: string): Promise<Partial<Record<NotifySecretKey, string>>> {
  const row = await ctx.ports.db.query<{ secrets: Partial<Record<NotifySecretKey, string>> }>(
    'select secrets from notify_channel_secrets where tenant_id = $1',
    [tenantId],
  );
  return row.rows[0]?.secrets ?? {};
}

export const notifySettingsHandlers: Pick<Handlers<AlarmRoutes>, 'notify.saveSettings'> = {
  async 'notify.saveSettings'({ body }, ctx) {
    const { tenantId } = callerOf(ctx);
    // A URL naming an internal address as written is refused now; the guard checks every call again after resolution.
    for (const field of ['smsEndpoint', 'smtpUrl', 'wecomWebhook', 'dingtalkWebhook'] as const) {
      const url = body[field];
      if (url && (ctx.ports.outbound?.refusesLiteral(url) ?? true)) throw new DomainError('OUTBOUND_URL_REFUSED', { field });
    }
    const before = await storedSecrets(ctx, tenantId);
    const after = { ...before };
    const fields: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(body)) {
      if ((notifySecretKeys as readonly string[]).includes(key)) {
        if (value === undefined) continue;
        if (value === null) delete after[key as NotifySecretKey];
        else after[key as NotifySecretKey] = value as string;
      } else fields[key] = value;
    }
    const secretsChanged = notifySecretKeys.filter((k) => before[k] !== after[k]);
    if (secretsChanged.length > 0)
      await ctx.ports.db.query(
        `insert into notify_channel_secrets (tenant_id, secrets) values ($1, $2)
         on conflict (tenant_id) do update set secrets = $2, updated_at = now()`,
        [tenantId, JSON.stringify(after)],
      );
    await runCommand(ctx, notifySettingsDecider, notifySettingsStream(tenantId), {
      type: 'SaveNotifySettings',
      fields: fields as NotifySettingsFields,
      secretsChanged,
    });
    return { secretsChanged };
  },
};
