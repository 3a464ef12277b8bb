/**
 * The forwarding outbox's delivery in a worker thread of its own (started by delivery-thread.ts): its own PostgreSQL
 * pool, outbound guard and MQTT clients, so that the outbound HTTP and MQTT work stays off the event loop of the
 * intake and the rule chains. It must never import the time-series adapter: chDB in a worker thread crashes the
 * process when the worker exits (ARCHITECTURE, "Facts").
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startForwardDelivery } from '@iot/projections/forward/delivery.ts';
import { parseAllowList } from '../outbound/address.ts';
import { createOutboundHttp } from '../outbound/http.ts';
import { createSqlPool } from '../postgres/sql.ts';
import { createForwardMqtt } from './mqtt.ts';
import type { DeliveryThreadData, ToDelivery, FromDelivery } from './delivery-thread.ts';

const data = workerData as DeliveryThreadData;
const port = parentPort!;
const post = (message: FromDelivery) => port.postMessage(message);

const db = createSqlPool(data.databaseUrl, data.poolSize);
const outbound = createOutboundHttp({ allow: parseAllowList(data.allowCidrs) });
const mqtt = createForwardMqtt({ outbound });
const delivery = startForwardDelivery({
  db,
  outbound,
  mqtt,
  backoffMs: data.backoffMs,
  maxAttempts: data.maxAttempts,
  ...(data.pollMs === undefined ? {} : { pollMs: data.pollMs }),
  log: (detail) => post({ type: 'log', detail }),
  onError: (error) => post({ type: 'error', message: (error as Error).message, stack: (error as Error).stack }),
});

port.on('message', (message: ToDelivery) => {
  if (message.type === 'kick') delivery.kick();
  else if (message.type === 'drain')
    delivery.drain().then(
      () => post({ type: 'drained', id: message.id, error: null }),
      (error: unknown) => post({ type: 'drained', id: message.id, error: (error as Error).message }),
    );
  else if (message.type === 'stop')
    void (async () => {
      await delivery.stop();
      await mqtt.close().catch(() => undefined);
      await outbound.close().catch(() => undefined);
      await db.end().catch(() => undefined);
      post({ type: 'stopped' });
    })();
});
