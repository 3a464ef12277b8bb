import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ForwardServerEvent } from '@iot/contracts';
import type { OutboundHttp, OutboundRequest } from '@iot/contracts/ports/outbound-http.ts';
import { readModelOf, type ReadModel } from '../../../tests/fixtures/read-model.ts';
import { forwardProjection } from './forward.ts';
import { createForwardEnqueuer, forwardOutboxTables } from './outbox.ts';
import { startForwardDelivery, type ForwardDelivery } from './delivery.ts';

let sut: ReadModel;
const server: ForwardServerEvent = {
  type: 'ForwardServerCreated',
  data: {
    serverId: 's1',
    type: 'http',
    name: 'Sink',
    ip: 'sink.example.com',
    port: 443,
    url: 'https://sink.example.com/in',
    username: null,
    clientId: null,
    tls: true,
    remark: null,
    hasPassword: false,
  },
};

/** An HTTP target that fails what `fails` says (by device and number, per attempt) and keeps what it took. */
function target(fails: (device: string, n: number, attempt: number) => boolean) {
  const taken: { device: string; n: number }[] = [];
  const attempts = new Map<string, number>();
  const outbound: OutboundHttp = {
    async request(_url: string, init?: OutboundRequest) {
      const { device, n } = JSON.parse(init!.body!) as { device: string; n: number };
      const attempt = (attempts.get(`${device}:${n}`) ?? 0) + 1;
      attempts.set(`${device}:${n}`, attempt);
      // Another worker taking the same device meanwhile would interleave here.
      await new Promise((resolve) => setImmediate(resolve));
      if (fails(device, n, attempt)) return { status: 503, ok: false, text: '' };
      taken.push({ device, n });
      return { status: 200, ok: true, text: '{}' };
    },
    address: async () => ({ address: '203.0.113.1', family: 4 }),
    refusesLiteral: () => false,
  };
  return { outbound, taken };
}
const unusedMqtt = { publish: async () => undefined, test: async () => undefined, close: async () => undefined };

async function enqueue(devices: string[], count: number) {
  for (let n = 0; n < count; n++)
    for (const device of devices)
      await sut.db.query(
        `insert into forward_outbox (tenant_id, rule_id, server_id, device_id, payload) values ('t1', 'r1', 's1', $1, $2)`,
        [device, JSON.stringify({ device, n })],
      );
}
const pending = async () =>
  (await sut.db.query<{ n: number }>(`select count(*)::int as n from forward_outbox where status = 'pending'`)).rows[0]!.n;
const workers: ForwardDelivery[] = [];
const errors: unknown[] = [];
function start(outbound: OutboundHttp, maxAttempts: number) {
  const worker = startForwardDelivery({
    db: sut.db,
    outbound,
    mqtt: unusedMqtt,
    backoffMs: 10,
    maxAttempts,
    pollMs: 10,
    log: () => undefined,
    onError: (error) => void errors.push(error),
  });
  workers.push(worker);
  return worker;
}

beforeAll(async () => {
  sut = await readModelOf(forwardProjection);
  await sut.db.query(forwardOutboxTables);
  await sut.given(forwardProjection, server, { tenantId: 't1' });
});
afterAll(async () => {
  for (const w of workers) await w.stop();
  await sut?.drop();
});

describe('the forwarding delivery worker', () => {
  it('delivers every message once and in order per device, two workers side by side, failures retried', async () => {
    const { outbound, taken } = target((device, n, attempt) => n % 3 === 1 && attempt <= 2);
    const devices = ['d1', 'd2', 'd3', 'd4'];
    await enqueue(devices, 8);
    start(outbound, 10);
    start(outbound, 10);
    await expect.poll(pending, { timeout: 20_000, interval: 20 }).toBe(0);
    for (const device of devices) expect(taken.filter((m) => m.device === device).map((m) => m.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(taken).toHaveLength(32);
    expect(errors).toEqual([]);
    expect((await sut.db.query('select 1 from forward_outbox')).rowCount).toBe(0);
    for (const w of workers.splice(0)) await w.stop();
  });

  it('gives a message up as a dead letter after the last try, and lets the ones behind it go', async () => {
    const { outbound, taken } = target((_device, n) => n === 0);
    await enqueue(['d9'], 3);
    const worker = start(outbound, 3);
    await expect.poll(pending, { timeout: 20_000, interval: 20 }).toBe(0);
    await worker.drain();
    expect(taken.map((m) => m.n)).toEqual([1, 2]);
    const dead = await sut.db.query<{ payload: string; attempts: number; error: string }>(
      `select payload, attempts, error from forward_outbox where status = 'dead'`,
    );
    expect(errors).toEqual([]);
    expect(dead.rows).toEqual([{ payload: JSON.stringify({ device: 'd9', n: 0 }), attempts: 3, error: 'HTTP_STATUS_5XX' }]);
  });

  it('sends a chain message run again (a batch after a crash) once more under its one id, after the first copy', async () => {
    // Only this test's worker: the ones before would take the rows to their own targets.
    for (const w of workers.splice(0)) await w.stop();
    const sent: Array<{ id: string | undefined; n: number }> = [];
    const outbound: OutboundHttp = {
      async request(_url: string, init?: OutboundRequest) {
        sent.push({ id: init!.headers?.['x-message-id'], n: (JSON.parse(init!.body!) as { n: number }).n });
        return { status: 200, ok: true, text: '{}' };
      },
      address: async () => ({ address: '203.0.113.1', family: 4 }),
      refusesLiteral: () => false,
    };
    const forward = createForwardEnqueuer(sut.db);
    const run = () =>
      Promise.all(
        [0, 1].map((n) =>
          forward({
            tenantId: 't1',
            ruleId: 'chain:root:f',
            serverId: 's1',
            deviceId: 'd7',
            topic: null,
            payload: JSON.stringify({ n }),
            messageId: `j-1-7.${n}`,
          }),
        ),
      );
    // The batch's messages are enqueued, and the batch runs again before they were delivered.
    await run();
    await run();
    const worker = start(outbound, 3);
    await worker.drain();
    // At least once: no copy is dropped by the outbox, each goes under its message's id for the target to drop a repeat.
    expect(sent).toEqual([
      { id: 'j-1-7.0', n: 0 },
      { id: 'j-1-7.1', n: 1 },
      { id: 'j-1-7.0', n: 0 },
      { id: 'j-1-7.1', n: 1 },
    ]);
    expect(errors).toEqual([]);
  });

  it('sends a row of several messages (a chain batch of one device) in order, and after a failure part way only what was left', async () => {
    for (const w of workers.splice(0)) await w.stop();
    // The third message fails once: the two before it were taken, and must not go again with the rest.
    const { outbound, taken } = target((_device, n, attempt) => n === 2 && attempt === 1);
    const forward = createForwardEnqueuer(sut.db);
    await Promise.all(
      [0, 1, 2, 3, 4].map((n) =>
        forward({
          tenantId: 't1',
          ruleId: 'chain:root:f',
          serverId: 's1',
          deviceId: 'd5',
          topic: null,
          payload: JSON.stringify({ device: 'd5', n }),
          messageId: `j-2-5.${n}`,
        }),
      ),
    );
    const rows = await sut.db.query<{ messages: number }>(`select messages from forward_outbox where device_id = 'd5'`);
    expect(rows.rows).toEqual([{ messages: 5 }]);
    const worker = start(outbound, 3);
    await expect.poll(pending, { timeout: 20_000, interval: 20 }).toBe(0);
    await worker.drain();
    expect(taken.map((m) => m.n)).toEqual([0, 1, 2, 3, 4]);
    expect(errors).toEqual([]);
    expect((await sut.db.query(`select 1 from forward_outbox where device_id = 'd5'`)).rowCount).toBe(0);
  });

  it('takes about PER_GROUP messages of a device in a round, not PER_GROUP rows of many messages each', async () => {
    for (const w of workers.splice(0)) await w.stop();
    // What the outbox held (rows of d6) when each message was sent: a round deletes what it delivered at its end.
    const rowsSeen: number[] = [];
    const outbound: OutboundHttp = {
      async request() {
        rowsSeen.push((await sut.db.query(`select 1 from forward_outbox where device_id = 'd6'`)).rowCount);
        return { status: 200, ok: true, text: '{}' };
      },
      address: async () => ({ address: '203.0.113.1', family: 4 }),
      refusesLiteral: () => false,
    };
    const forward = createForwardEnqueuer(sut.db);
    // Three batches of 40 messages: three rows.
    for (let batch = 0; batch < 3; batch++)
      await Promise.all(
        Array.from({ length: 40 }, (_, n) =>
          forward({
            tenantId: 't1',
            ruleId: 'chain:root:f',
            serverId: 's1',
            deviceId: 'd6',
            topic: null,
            payload: JSON.stringify({ n }),
            messageId: `j-3-${batch}.${n}`,
          }),
        ),
      );
    const worker = start(outbound, 3);
    await worker.drain();
    expect(rowsSeen).toHaveLength(120);
    // The first round took two rows (80 messages, past 50 with the second), the next one the third.
    expect(rowsSeen.slice(0, 80).every((n) => n === 3)).toBe(true);
    expect(rowsSeen.slice(80).every((n) => n === 1)).toBe(true);
    expect(errors).toEqual([]);
  });
});
