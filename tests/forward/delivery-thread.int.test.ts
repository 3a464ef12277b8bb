import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY_APPLICATION_NAME, startForwardDeliveryThread } from '@iot/infra/forward/delivery-thread.ts';
import { forwardProjection } from '@iot/projections/forward/forward.ts';
import { forwardOutboxTables } from '@iot/projections/forward/outbox.ts';
import { recordHttpForwardServer } from '../fixtures/forward-server.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';

/**
 * Forward delivery in its own worker thread (issue 19): the outbox in PostgreSQL is all it shares with the process,
 * so the guarantees are the worker's (at least once, in order per device, `x-message-id`, the outbound guard), and
 * stopping it closes its connections.
 */
let db: TestDatabase;
let target: Server;
/** What the target took: device, number and message id; each message's first attempt is answered 503. */
const taken: Array<{ device: string; n: number; messageId: string }> = [];
const tried = new Set<string>();

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(forwardProjection.schema);
  await db.pool.query(forwardOutboxTables);
  target = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const { device, n } = JSON.parse(body) as { device: string; n: number };
      const messageId = String(req.headers['x-message-id']);
      if (!tried.has(messageId)) {
        tried.add(messageId);
        return res.writeHead(503).end();
      }
      taken.push({ device, n, messageId });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const port = (target.address() as AddressInfo).port;
  await recordHttpForwardServer(db.pool, { name: 'Target', url: `http://127.0.0.1:${port}/in` });
}, 120_000);

afterAll(async () => {
  await new Promise<void>((resolve) => target?.close(() => resolve()));
  await db?.drop();
});

const threadConnections = async () =>
  (
    await db.pool.query<{ n: number }>(
      'select count(*)::int as n from pg_stat_activity where application_name = $1 and datname = current_database()',
      [DELIVERY_APPLICATION_NAME],
    )
  ).rows[0]!.n;

describe('forward delivery in a worker thread', () => {
  it('delivers every message once, in order per device, under its id, retried; its connections close when it stops', async () => {
    const devices = ['d1', 'd2', 'd3'];
    for (let n = 0; n < 4; n++)
      for (const device of devices)
        await db.pool.query(
          `insert into forward_outbox (tenant_id, rule_id, server_id, device_id, payload, message_id) values ('t1', 'r1', 's1', $1, $2, $3)`,
          [device, JSON.stringify({ device, n }), `${device}.${n}`],
        );
    const errors: unknown[] = [];
    const sut = startForwardDeliveryThread(
      { databaseUrl: db.url, poolSize: 2, allowCidrs: '127.0.0.1/32', backoffMs: 10, maxAttempts: 10, pollMs: 10 },
      { log: () => undefined, onError: (error) => void errors.push(error) },
    );
    const pending = async () =>
      (await db.pool.query<{ n: number }>(`select count(*)::int as n from forward_outbox where status = 'pending'`)).rows[0]!.n;
    await expect.poll(pending, { timeout: 30_000, interval: 50 }).toBe(0);
    await sut.drain();
    for (const device of devices) {
      const own = taken.filter((m) => m.device === device);
      expect(own.map((m) => m.n)).toEqual([0, 1, 2, 3]);
      expect(own.map((m) => m.messageId)).toEqual([0, 1, 2, 3].map((n) => `${device}.${n}`));
    }
    expect(errors).toEqual([]);
    expect(await threadConnections()).toBeGreaterThan(0);

    await sut.stop();
    await expect.poll(threadConnections, { timeout: 10_000, interval: 50 }).toBe(0);
  }, 120_000);
});
