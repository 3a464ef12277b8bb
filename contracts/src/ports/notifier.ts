/** A message to a person: a verification code, an audit result, an alarm notice. */
export interface Notification {
  tenantId: string;
  channel: 'sms' | 'email';
  to: string;
  subject: string;
  body: string;
}

export interface Notifier {
  /** Delivers or queues the message; never throws for a delivery failure, which is recorded instead. */
  send(notification: Notification): Promise<{ id: number; status: 'sent' | 'logged' | 'failed' }>;
}
