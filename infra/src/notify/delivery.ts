import type { Logger } from 'pino';
import type { LiveFeed } from '@iot/contracts/ports/live.ts';
import type { OutboundHttp } from '@iot/contracts/ports/outbound-http.ts';
import { startDelivery as startOutboxDelivery, type Delivery } from '@iot/projections/notify/delivery.ts';
import type { SqlPool } from '../postgres/sql.ts';
import type { ChannelSender } from './channels.ts';
import { tenantChannels } from './tenant-channels.ts';

export type { Delivery };

export interface DeliveryOptions {
  db: SqlPool;
  /** The platform's channels: what carries a tenant's notifications where it configured none of its own. */
  channels: ChannelSender;
  /** The guard every call of a tenant's own channels goes through (issue 24). */
  outbound: OutboundHttp;
  /** The platform's sender address, for a tenant's SMTP without one of its own. */
  from?: string;
  logger: Logger;
  live?: LiveFeed;
  maxAttempts?: number;
  backoffMs?: number;
  reminderMin?: number;
  intervalMs?: number;
}

/** The notification outbox's delivery worker (projections/src/notify) over the tenants' channels, logging to the platform log. */
export function startDelivery(options: DeliveryOptions): Delivery {
  const { db, logger } = options;
  return startOutboxDelivery({
    db,
    channels: tenantChannels(db, options.channels, { from: options.from ?? 'iot@localhost', outbound: options.outbound }),
    live: options.live,
    maxAttempts: options.maxAttempts,
    backoffMs: options.backoffMs,
    reminderMin: options.reminderMin,
    intervalMs: options.intervalMs,
    onUndelivered: (detail) => logger.warn(detail, 'notification not delivered'),
    onError: (error) => logger.error({ err: error }, 'notification delivery failed'),
  });
}
