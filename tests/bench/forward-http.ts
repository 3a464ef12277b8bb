/**
 * `forward-http` (issue 19): messages per second the forwarding outbox delivers, at least once and in order per
 * device, to a local HTTP sink, against the limit measured in the same run: the same sink driven directly by the same
 * HTTP client (the platform's outbound adapter) with as many requests in flight as the delivery worker keeps (its
 * PARALLEL groups). The delivery runs as in the platform, in its own worker thread.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseAllowList } from '@iot/infra/outbound/address.ts';
import { createOutboundHttp } from '@iot/infra/outbound/http.ts';
import { startEmbeddedPostgres } from '@iot/infra/postgres/embedded.ts';
import { createSqlPool } from '@iot/infra/postgres/sql.ts';
import { forwardProjection } from '@iot/projections/forward/forward.ts';
import { forwardOutboxTables } from '@iot/projections/forward/outbox.ts';
import { startForwardDeliveryThread } from '@iot/infra/forward/delivery-thread.ts';
import { recordHttpForwardServer } from '../fixtures/forward-server.ts';
import { freePort } from '../harness/free-port.ts';
import type { Figure } from './figure.ts';
import { startHttpSink } from './http-sink.ts';

const IN_FLIGHT = 16;

export async function benchForwardHttp(options: { messages?: number; devices?: number } = {}): Promise<Figure[]> {
  const total = options.messages ?? 6_000;
  const devices = options.devices ?? 100;
  const sink = await startHttpSink();
  // The platform's own outbound adapter (undici behind the address guard), the loopback range allowed as an operator would.
  const outbound = createOutboundHttp({ allow: parseAllowList('127.0.0.0/8') });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-forward-'));
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort() });
  const db = createSqlPool(pg.url, 8);
  try {
    // The sink's ceiling: the same client, IN_FLIGHT requests at a time, the same bodies.
    const body = JSON.stringify({ deviceId: 'd0', values: { temperature: 21.5, humidity: 40 } });
    let sent = 0;
    const began = performance.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (sent < total) {
          sent++;
          await outbound.request(sink.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        }
      }),
    );
    const directMs = performance.now() - began;

    await db.query(forwardProjection.schema);
    await db.query(forwardOutboxTables);
    await recordHttpForwardServer(db, { name: 'Sink', url: sink.url, meta: { actor: { kind: 'system', id: 'bench' } } });
    await db.query(
      `insert into forward_outbox (tenant_id, rule_id, server_id, device_id, payload)
       select 't1', 'r1', 's1', 'd' || (n % $2), $3 from generate_series(1, $1) as n`,
      [total, devices, body],
    );
    const before = await sink.count();
    const started = performance.now();
    const errors: unknown[] = [];
    // As the platform runs it: in a thread of its own, with its own pool and outbound client (the loopback range allowed).
    const worker = startForwardDeliveryThread(
      { databaseUrl: pg.url, poolSize: 4, allowCidrs: '127.0.0.0/8', backoffMs: 100, maxAttempts: 4, pollMs: 5 },
      { log: () => undefined, onError: (error) => void errors.push(error) },
    );
    const deadline = Date.now() + 600_000;
    let delivered = 0;
    while ((delivered = (await sink.count()) - before) < total && Date.now() < deadline && errors.length === 0)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const outboxMs = performance.now() - started;
    await worker.stop();
    if (errors.length) throw errors[0];
    return [
      {
        bench: 'forward-http',
        value: Math.round((delivered * 1000) / outboxMs),
        unit: 'messages/s',
        limit: Math.round((total * 1000) / directMs),
        limit_of: `the same local HTTP sink driven directly by the same client, ${IN_FLIGHT} requests in flight`,
        messages: total,
        devices,
      },
    ];
  } finally {
    await db.end();
    await pg.stop();
    await rm(dir, { recursive: true, force: true });
    await sink.close();
    await outbound.close();
  }
}
