import type { Logger } from 'pino';
import type { ForwardMqtt } from '@iot/contracts/ports/forward.ts';
import type { OutboundHttp } from '@iot/contracts/ports/outbound-http.ts';
import { createForwardReactor, type ForwardReactor } from '@iot/projections/forward/reactor.ts';
import { startForwardDelivery, type ForwardDelivery } from '@iot/projections/forward/delivery.ts';
import { retryDeadLetters } from '@iot/projections/forward/outbox.ts';
import type { Config } from '../config.ts';
import { startForwardDeliveryThread } from '../forward/delivery-thread.ts';
import { createForwardMqtt } from '../forward/mqtt.ts';
import type { SqlPool } from '../postgres/sql.ts';
import type { Stops } from './stops.ts';

export interface ForwardingWiring {
  /** The MQTT forwarding adapter (connection tests and delivery). */
  mqtt: ForwardMqtt;
  /** The platform's own listeners: a forwarding target on one of them would forward into itself (the API's port once it listens). */
  localPorts: number[];
  /** The rules on the telemetry (with the intake). */
  reactor: ForwardReactor | null;
  /** The outbox's delivery worker (with the projections), in a thread of its own. */
  delivery: ForwardDelivery | null;
  /** Once the read models exist: the rules loaded, and reloaded where the projections run elsewhere. */
  loadRules(): Promise<void>;
  /** Starts the delivery worker's thread: in the processes that run the projections. */
  startDelivery(): void;
  /** Dead letters sent again (the route's side of the outbox). */
  retryDeadLetters(tenantId: string, ids: readonly string[]): Promise<number>;
}

/** Connections of the delivery thread: a claim, a delete and the failures' updates per round. */
const DELIVERY_POOL_SIZE = 4;

/** Forwarding to MQTT and HTTP servers: the reactor that puts messages in the outbox, and the worker that delivers them. */
export function startForwarding(
  w: {
    config: Config;
    db: SqlPool;
    databaseUrl: string;
    outbound: OutboundHttp;
    logger: Logger;
    withIntake: boolean;
    mqttPort: number | null;
  },
  stops: Stops,
): ForwardingWiring {
  const { config, db, logger } = w;
  const mqtt = createForwardMqtt({ outbound: w.outbound });
  stops.push(() => mqtt.close());
  const forwarding: ForwardingWiring = {
    mqtt,
    localPorts: w.mqttPort === null ? [] : [w.mqttPort],
    reactor: null,
    delivery: null,
    async loadRules() {
      const reactor = forwarding.reactor;
      if (!reactor) return;
      await reactor.load();
      // Rule changes reach the reactor from the log (its hooks) and, in a process without the projections, by this reload.
      const reload = setInterval(
        () => void reactor.load().catch((err: unknown) => logger.error({ err }, 'forwarding rules not reloaded')),
        5_000,
      );
      stops.push(async () => clearInterval(reload));
    },
    startDelivery() {
      const report = {
        log: (detail: Record<string, unknown>) => logger.warn(detail, 'forwarded message not delivered'),
        onError: (err: unknown) => logger.error({ err }, 'forwarding delivery failed'),
      };
      if (config.FORWARD_DELIVERY === 'inline') {
        // The same worker on this process's event loop and pool: no second isolate (FORWARD_DELIVERY=inline).
        const inline = startForwardDelivery({
          db,
          outbound: w.outbound,
          mqtt,
          backoffMs: config.FORWARD_RETRY_MS,
          maxAttempts: config.FORWARD_MAX_ATTEMPTS,
          ...report,
        });
        forwarding.delivery = inline;
        stops.push(() => inline.stop());
        return;
      }
      // Outbound HTTP and MQTT off this process's event loop (the intake and the chains): the thread has its own pool.
      const worker = startForwardDeliveryThread(
        {
          databaseUrl: w.databaseUrl,
          poolSize: DELIVERY_POOL_SIZE,
          allowCidrs: config.OUTBOUND_ALLOW_CIDRS,
          backoffMs: config.FORWARD_RETRY_MS,
          maxAttempts: config.FORWARD_MAX_ATTEMPTS,
        },
        report,
      );
      forwarding.delivery = worker;
      stops.push(() => worker.stop());
    },
    retryDeadLetters: (tenantId, ids) => retryDeadLetters(db, tenantId, ids),
  };
  if (w.withIntake) {
    const reactor = createForwardReactor({
      db,
      onError: (err) => logger.error({ err }, 'forwarding not enqueued'),
      onEnqueued: () => forwarding.delivery?.kick(),
    });
    forwarding.reactor = reactor;
    // Messages gathered when the process stops are written before the database closes.
    stops.push(() => reactor.flush());
  }
  return forwarding;
}
