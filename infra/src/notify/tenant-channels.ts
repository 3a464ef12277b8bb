import { tenantChannelKinds, type NotifySecretKey } from '@iot/contracts';
import type { TenantChannels } from '@iot/contracts/ports/channels.ts';
import type { OutboundHttp } from '@iot/contracts/ports/outbound-http.ts';
import { notifySettingsOf } from '@iot/projections/alarm/read.ts';
import { errorClassOf } from '../outbound/errors.ts';
import type { SqlPool } from '../postgres/sql.ts';
import { createChannels, type ChannelConfig, type ChannelSender } from './channels.ts';

/**
 * The channels of one tenant: each channel the tenant configured itself (notification settings) goes through its
 * own credentials and the outbound guard (`outbound`: the addresses a tenant may reach), every other through the platform's. Senders are kept per tenant and made anew when the tenant's
 * settings change (SMTP pools stay open between passes).
 */
export function tenantChannels(
  db: SqlPool,
  platform: ChannelSender,
  options: { from: string; outbound: OutboundHttp; create?: (config: ChannelConfig) => ChannelSender },
): TenantChannels {
  const create = options.create ?? ((config: ChannelConfig) => createChannels(config, { outbound: options.outbound }));
  const cache = new Map<string, { key: string; own: ChannelSender; sender: ChannelSender }>();
  return {
    async forTenant(tenantId: string): Promise<ChannelSender> {
      const secrets = (
        await db.query<{ secrets: Partial<Record<NotifySecretKey, string>> }>(
          'select secrets from notify_channel_secrets where tenant_id = $1',
          [tenantId],
        )
      ).rows[0]?.secrets;
      const settings = secrets ? await notifySettingsOf(db, tenantId) : null;
      const row = secrets && {
        secrets,
        smtpFrom: settings?.smtpFrom ?? null,
        smsEndpoint: settings?.smsEndpoint ?? null,
        smsSignName: settings?.smsSignName ?? null,
        smsTemplateCode: settings?.smsTemplateCode ?? null,
      };
      const cached = cache.get(tenantId);
      if (!row) {
        if (cached) {
          cached.own.close();
          cache.delete(tenantId);
        }
        return platform;
      }
      const key = JSON.stringify(row);
      if (cached?.key === key) return cached.sender;
      cached?.own.close();
      const s = row.secrets;
      const kinds = tenantChannelKinds(row, s);
      const own = create({
        smtpUrl: kinds.email ? s.smtpUrl : undefined,
        from: row.smtpFrom ?? options.from,
        sms: kinds.sms
          ? {
              endpoint: row.smsEndpoint!,
              accessKeyId: s.smsAccessKeyId!,
              accessKeySecret: s.smsAccessKeySecret!,
              signName: row.smsSignName!,
              templateCode: row.smsTemplateCode!,
            }
          : undefined,
        wecomWebhook: kinds.wechat ? s.wecomWebhook : undefined,
        dingtalkWebhook: kinds.dingtalk ? s.dingtalkWebhook : undefined,
        dingtalkSecret: kinds.dingtalk ? s.dingtalkSecret : undefined,
      });
      const sender: ChannelSender = {
        configured: (kind) => own.configured(kind) || platform.configured(kind),
        send: (m) => (own.configured(m.channel) ? own.send(m) : platform.send(m)),
        close: () => own.close(),
      };
      cache.set(tenantId, { key, own, sender });
      return sender;
    },
    errorClassOf,
    close() {
      for (const { own } of cache.values()) own.close();
      cache.clear();
    },
  };
}
