/**
 * `forward-http` (issue 19): messages per second the forwarding outbox delivers, at least once and in order per
 * device, to a local HTTP sink, against the limit measured in the same run: the same sink driven directly by the same
 * HTTP client with as many requests in flight as the delivery worker keeps (its PARALLEL groups).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OutboundHttp } from '@iot/contracts/ports/outbound-http.ts';
import { forwardProjection } from '@iot/projections/forward/forward.ts';
import { forwardOutboxSchema } from '@iot/projections/forward/outbox.ts';
import { startForwardDelivery } from '@iot/projections/forward/delivery.ts';
import { readModelOf } from '../fixtures/read-model.ts';
import type { Figure } from './figure.ts';

const IN_FLIGHT = 16;

/** A sink that answers 200 to every POST once its body is read, and counts them. */
async function startHttpSink() {
  let received = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/ingest`,
    get received() {
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The outbound port over `fetch` (loopback only here: the address guard is the platform's, not this figure's). */
const outbound: OutboundHttp = {
  async request(url, init) {
    const response = await fetch(url, { method: init?.method ?? 'POST', headers: init?.headers, body: init?.body });
    return { status: response.status, ok: response.ok, text: await response.text() };
  },
  address: async () => ({ address: '127.0.0.1', family: 4 }),
  refusesLiteral: () => false,
};

export async function benchForwardHttp(options: { messages?: number; devices?: number } = {}): Promise<Figure[]> {
  const total = options.messages ?? 6_000;
  const devices = options.devices ?? 100;
  const sink = await startHttpSink();
  const rm = await readModelOf(forwardProjection);
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

    await rm.db.query(forwardOutboxSchema);
    await rm.given(
      forwardProjection,
      {
        type: 'ForwardServerCreated',
        data: {
          serverId: 's1',
          type: 'http',
          name: 'Sink',
          ip: '127.0.0.1',
          port: Number(new URL(sink.url).port),
          url: sink.url,
          username: null,
          clientId: null,
          tls: false,
          remark: null,
          hasPassword: false,
        },
      },
      { tenantId: 't1' },
    );
    await rm.db.query(
      `insert into forward_outbox (tenant_id, rule_id, server_id, device_id, payload)
       select 't1', 'r1', 's1', 'd' || (n % $2), $3 from generate_series(1, $1) as n`,
      [total, devices, body],
    );
    const before = sink.received;
    const started = performance.now();
    const errors: unknown[] = [];
    const worker = startForwardDelivery({
      db: rm.db,
      outbound,
      mqtt: { publish: async () => undefined, test: async () => undefined, close: async () => undefined },
      backoffMs: 100,
      maxAttempts: 4,
      pollMs: 5,
      log: () => undefined,
      onError: (error) => void errors.push(error),
    });
    const deadline = Date.now() + 600_000;
    while (sink.received - before < total && Date.now() < deadline && errors.length === 0)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const outboxMs = performance.now() - started;
    await worker.stop();
    if (errors.length) throw errors[0];
    return [
      {
        bench: 'forward-http',
        value: Math.round(((sink.received - before) * 1000) / outboxMs),
        unit: 'messages/s',
        limit: Math.round((total * 1000) / directMs),
        limit_of: `the same local HTTP sink driven directly by the same client, ${IN_FLIGHT} requests in flight`,
        messages: total,
        devices,
      },
    ];
  } finally {
    await rm.drop();
    await sink.close();
  }
}
