import type { Logger } from 'pino';
import type { NotifySettings } from '@iot/contracts';
import type { Config } from '../config.ts';
import { createChannels } from '../notify/channels.ts';
import { createNotifier } from '../notify/outbox.ts';
import { parseAllowList } from '../outbound/address.ts';
import { createOutboundHttp } from '../outbound/http.ts';
import type { SqlPool } from '../postgres/sql.ts';
import type { Stops } from './stops.ts';

/** What the notification settings screen shows of the configuration: whether and where, never a credential. */
export function notifySettingsOf(config: Config): NotifySettings {
  const host = (url: string | undefined) => (url ? new URL(url).host : null);
  const sms = !!(
    config.SMS_ENDPOINT &&
    config.SMS_ACCESS_KEY_ID &&
    config.SMS_ACCESS_KEY_SECRET &&
    config.SMS_SIGN_NAME &&
    config.SMS_TEMPLATE_CODE
  );
  return {
    channels: [
      { kind: 'email', configured: !!config.SMTP_URL, target: host(config.SMTP_URL), variables: ['SMTP_URL', 'SMTP_FROM'] },
      {
        kind: 'sms',
        configured: sms,
        target: host(config.SMS_ENDPOINT),
        variables: ['SMS_ENDPOINT', 'SMS_ACCESS_KEY_ID', 'SMS_ACCESS_KEY_SECRET', 'SMS_SIGN_NAME', 'SMS_TEMPLATE_CODE'],
      },
      { kind: 'wechat', configured: !!config.WECOM_WEBHOOK, target: host(config.WECOM_WEBHOOK), variables: ['WECOM_WEBHOOK'] },
      {
        kind: 'dingtalk',
        configured: !!config.DINGTALK_WEBHOOK,
        target: host(config.DINGTALK_WEBHOOK),
        variables: ['DINGTALK_WEBHOOK', 'DINGTALK_SECRET'],
      },
      { kind: 'inApp', configured: true, target: null, variables: [] },
    ],
    tenantPerMinute: config.NOTIFY_TENANT_PER_MIN,
    contactPerMinute: config.NOTIFY_CONTACT_PER_MIN,
    retryMs: config.NOTIFY_RETRY_MS,
    ticketReminderMin: config.TICKET_REMINDER_MIN,
  };
}

/**
 * The ways out: mail, SMS and chat channels, the guarded outbound HTTP client, and the notifier (verification
 * codes and audit results go through the same channels as alarm notifications).
 */
export async function startOutgoing(config: Config, db: SqlPool, logger: Logger, stops: Stops) {
  const outgoing = createChannels({
    smtpUrl: config.SMTP_URL,
    from: config.SMTP_FROM,
    sms:
      config.SMS_ENDPOINT && config.SMS_ACCESS_KEY_ID && config.SMS_ACCESS_KEY_SECRET && config.SMS_SIGN_NAME && config.SMS_TEMPLATE_CODE
        ? {
            endpoint: config.SMS_ENDPOINT,
            accessKeyId: config.SMS_ACCESS_KEY_ID,
            accessKeySecret: config.SMS_ACCESS_KEY_SECRET,
            signName: config.SMS_SIGN_NAME,
            templateCode: config.SMS_TEMPLATE_CODE,
          }
        : undefined,
    wecomWebhook: config.WECOM_WEBHOOK,
    dingtalkWebhook: config.DINGTALK_WEBHOOK,
    dingtalkSecret: config.DINGTALK_SECRET,
  });
  stops.push(async () => outgoing.close());
  // Every URL a tenant sets is called through the guard (issue 24): no internal address unless the operator allows its range.
  const outbound = createOutboundHttp({ allow: parseAllowList(config.OUTBOUND_ALLOW_CIDRS) });
  stops.push(() => outbound.close());
  const notifier = await createNotifier(db, logger, outgoing);
  return { outgoing, outbound, notifier };
}
