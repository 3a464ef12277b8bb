import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startForwardDeliveryThread } from '@iot/infra/forward/delivery-thread.ts';
import { forwardProjection } from '@iot/projections/forward/forward.ts';
import { forwardOutboxTables } from '@iot/projections/forward/outbox.ts';
import { recordHttpForwardServer } from '../fixtures/forward-server.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';

/**
 * Batch delivery to an HTTP target (issue 19): a server with `batchSize` above 1 takes several outbox messages in one
 * POST, a JSON array of `{ id, deviceId, payload }`. At least once and in order per device still hold: a message is
 * delivered only when its POST is answered 2xx, so a POST the target took but answered with a failure comes again, and
 * the receiver drops the repeats by id.
 */
const BATCH = 5;
const DEVICES = ['d1', 'd2', 'd3'];
const PER_DEVICE = 10;

let db: TestDatabase;
let target: Server;
let posts = 0;
/** Every element the target took, repeats included, in the order it took them; and the size of each POST's array. */
const received: Array<{ id: string; deviceId: string; payload: { device: string; n: number } }> = [];
const sizes: number[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(forwardProjection.schema);
  await db.pool.query(forwardOutboxTables);
  target = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      posts++;
      // The first POST fails before it is read; the second is taken and then answered with a failure (so it comes
      // again: the receiver sees repeats); the third fails again; every later one is taken and answered 200.
      if (posts === 1 || posts === 3) return res.writeHead(503).end();
      const batch = JSON.parse(body) as typeof received;
      sizes.push(batch.length);
      expect(Number(req.headers['x-message-count'])).toBe(batch.length);
      received.push(...batch);
      res.writeHead(posts === 2 ? 500 : 200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const port = (target.address() as AddressInfo).port;
  await recordHttpForwardServer(db.pool, { name: 'Batching target', url: `http://127.0.0.1:${port}/in`, batchSize: BATCH });
}, 120_000);

afterAll(async () => {
  await new Promise<void>((resolve) => target?.close(() => resolve()));
  await db?.drop();
});

describe('batch delivery to an HTTP target', () => {
  it('delivers every message once after dropping repeats by id, in order per device, several to a POST, through failed attempts', async () => {
    for (let n = 0; n < PER_DEVICE; n++)
      for (const device of DEVICES)
        await db.pool.query(
          `insert into forward_outbox (tenant_id, rule_id, server_id, device_id, payload, message_id) values ('t1', 'r1', 's1', $1, $2, $3)`,
          [device, JSON.stringify({ device, n }), `${device}.${n}`],
        );
    const errors: unknown[] = [];
    const sut = startForwardDeliveryThread(
      { databaseUrl: db.url, poolSize: 2, allowCidrs: '127.0.0.1/32', backoffMs: 10, maxAttempts: 10, pollMs: 10 },
      { log: () => undefined, onError: (error) => void errors.push(error) },
    );
    try {
      const left = async () => (await db.pool.query<{ n: number }>(`select count(*)::int as n from forward_outbox`)).rows[0]!.n;
      await expect.poll(left, { timeout: 30_000, interval: 50 }).toBe(0);
      await sut.drain();
    } finally {
      await sut.stop();
    }
    expect(errors).toEqual([]);

    // The receiver's side: repeats dropped by id, what is left is every message once.
    const seen = new Set<string>();
    const firsts = received.filter((m) => !seen.has(m.id) && seen.add(m.id));
    const repeats = received.length - firsts.length;
    expect(firsts).toHaveLength(DEVICES.length * PER_DEVICE);
    // The POST taken and answered 500 came again: its messages are the repeats, and nothing else is.
    expect(repeats).toBe(sizes[0]);
    expect(repeats).toBeGreaterThan(0);
    for (const device of DEVICES) {
      const own = firsts.filter((m) => m.deviceId === device);
      expect(own.map((m) => m.payload.n)).toEqual([...Array(PER_DEVICE).keys()]);
      expect(own.map((m) => m.id)).toEqual([...Array(PER_DEVICE).keys()].map((n) => `${device}.${n}`));
      expect(own.every((m) => m.payload.device === device)).toBe(true);
    }
    // Several messages to a POST, never more than the server's batch size.
    expect(Math.max(...sizes)).toBe(BATCH);
    expect(sizes.length).toBeLessThan(DEVICES.length * PER_DEVICE);
  }, 120_000);
});
