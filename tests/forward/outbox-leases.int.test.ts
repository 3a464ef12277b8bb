import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboundHttp, OutboundRequest } from '@iot/contracts/ports/outbound-http.ts';
import { startForwardDelivery } from '@iot/projections/forward/delivery.ts';
import { forwardProjection } from '@iot/projections/forward/forward.ts';
import {
  forwardOutboxGroupedRows,
  forwardOutboxLeases,
  forwardOutboxMessageIds,
  forwardOutboxSchema,
  forwardOutboxWithoutMessageIndex,
} from '@iot/projections/forward/outbox.ts';
import { recordHttpForwardServer } from '../fixtures/forward-server.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';

/**
 * The outbox's claims by (server, device) lease (migration 3): a claim in flight when the upgrade runs still holds its
 * device back until its lease lapses, so that two processes do not send the same messages across the upgrade.
 */
let db: TestDatabase;
const taken: string[] = [];
/** Runs while a request is in flight: lets a test act as another process between a round's claim and its release. */
let duringRequest: (device: string) => Promise<void> = async () => undefined;
const outbound: OutboundHttp = {
  async request(_url: string, init?: OutboundRequest) {
    const device = (JSON.parse(init!.body!) as { device: string }).device;
    taken.push(device);
    await duringRequest(device);
    return { status: 200, ok: true, text: '{}' };
  },
  address: async () => ({ address: '203.0.113.1', family: 4 }),
  refusesLiteral: () => false,
};
const unusedMqtt = { publish: async () => undefined, test: async () => undefined, close: async () => undefined };

/** Delivery with one slow poll: the tests drive its rounds with `drain()`. */
const startDelivery = () =>
  startForwardDelivery({
    db: db.pool,
    outbound,
    mqtt: unusedMqtt,
    backoffMs: 10,
    maxAttempts: 3,
    pollMs: 60_000,
    log: () => undefined,
    onError: (error) => {
      throw error;
    },
  });

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(forwardProjection.schema);
  // The outbox as the release before the leases left it.
  await db.pool.query(forwardOutboxSchema + forwardOutboxMessageIds);
  await recordHttpForwardServer(db.pool, { name: 'Sink', url: 'http://127.0.0.1:9/in' });
});
afterAll(async () => {
  await db?.drop();
});

describe('the forwarding outbox leases', () => {
  it('holds back a device claimed when the upgrade ran until that lease lapses, and lets the others go', async () => {
    const enqueue = (device: string, claimedUntil: string | null) =>
      db.pool.query(
        `insert into forward_outbox (tenant_id, rule_id, server_id, device_id, payload, claimed_until)
         values ('t1', 'r1', 's1', $1, $2, $3::timestamptz)`,
        [device, JSON.stringify({ device }), claimedUntil],
      );
    // d1's message was being delivered by another process when the upgrade ran; d2's was waiting.
    await enqueue('d1', new Date(Date.now() + 3_600_000).toISOString());
    await enqueue('d2', null);
    await db.pool.query(forwardOutboxLeases);
    // The migrations after it, which the delivery of this release runs on.
    await db.pool.query(forwardOutboxWithoutMessageIndex + forwardOutboxGroupedRows);
    const sut = startDelivery();
    try {
      await sut.drain();
      expect(taken).toEqual(['d2']);
      // The other process's lease lapses: its device is taken again (at least once).
      await db.pool.query(`update forward_outbox_leases set claimed_until = now() - interval '1 second' where device_id = 'd1'`);
      await db.pool.query(
        `insert into forward_outbox (tenant_id, rule_id, server_id, device_id, payload) values ('t1', 'r1', 's1', 'd3', $1)`,
        [JSON.stringify({ device: 'd3' })],
      );
      await sut.drain();
      expect(taken.slice(1).sort()).toEqual(['d1', 'd3']);
      expect((await db.pool.query('select 1 from forward_outbox')).rowCount).toBe(0);
    } finally {
      await sut.stop();
    }
  });

  it('hands back only a lease the round still holds, not one another round took after it lapsed', async () => {
    const later = '2999-01-01 00:00:00+00';
    duringRequest = async (device) => {
      // While d4 is in flight its lease lapses and another process takes the device.
      if (device === 'd4')
        await db.pool.query(`update forward_outbox_leases set claimed_until = $1::timestamptz where device_id = 'd4'`, [later]);
    };
    await db.pool.query(
      `insert into forward_outbox (tenant_id, rule_id, server_id, device_id, payload) values ('t1', 'r1', 's1', 'd4', $1)`,
      [JSON.stringify({ device: 'd4' })],
    );
    const sut = startDelivery();
    try {
      await sut.drain();
      expect(taken.at(-1)).toBe('d4');
      const lease = await db.pool.query<{ held: boolean }>(
        `select claimed_until = $1::timestamptz as held from forward_outbox_leases where device_id = 'd4'`,
        [later],
      );
      expect(lease.rows[0]?.held).toBe(true);
    } finally {
      duringRequest = async () => undefined;
      await sut.stop();
    }
  });
});
