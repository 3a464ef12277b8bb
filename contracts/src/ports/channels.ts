import type { OutboundErrorClass } from './outbound-http.ts';

/** The ways a notification leaves the platform (in-app messages stay in the inbox and need none). */
export type ChannelKind = 'email' | 'sms' | 'wechat' | 'dingtalk';

export interface ChannelMessage {
  channel: ChannelKind;
  to: string;
  subject: string;
  body: string;
  /** Files an email carries (a scheduled report's table); the other channels carry the text only. */
  attachments?: readonly MailAttachment[];
}

/** A file a mail carries. */
export type MailAttachment = {
  filename: string;
  contentType: string;
  content: Uint8Array;
};

/**
 * Sends one message: resolves once the channel accepted it, rejects otherwise with an `OutboundError`: its class
 * (`HTTP_STATUS_5XX`, `ANSWER_REJECTED`, `SMTP_REJECTED`…) and, in its message, why (HTTP status, errcode, SMTP reply).
 */
export interface ChannelSender {
  send(message: ChannelMessage): Promise<void>;
  configured(kind: ChannelKind): boolean;
  close(): void;
}

/** The channels a tenant's notifications go through: its own where it configured them, the platform's otherwise. */
export interface TenantChannels {
  forTenant(tenantId: string): Promise<ChannelSender>;
  /** The class a tenant may see of what a send rejected with (the detail stays in the platform log). */
  errorClassOf(error: unknown): OutboundErrorClass;
  close(): void;
}
