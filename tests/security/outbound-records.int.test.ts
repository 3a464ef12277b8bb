import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '@iot/infra/migrate/migrate.ts';
import { commandOwners } from '@iot/infra/migrate/owners.ts';
import { notifyRecordsSchema } from '@iot/projections/alarm/outbox.ts';
import { createTestDatabase, type TestDatabase } from '../harness/postgres.ts';

/**
 * Issue 24: notification records written by earlier releases held the peer's answer (`HTTP 400: <an internal
 * service's body>`), which the tenant reads on the records screen. The upgrade turns each into its class.
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.drop());

describe('notification records of an earlier release', () => {
  it("keep a class of failure, not the peer's answer", async () => {
    // The table as the earlier release made it, with what its delivery worker wrote.
    await migrate(db.pool, [
      {
        owner: 'notify.records',
        tables: ['notify_records', 'notify_storm'],
        migrations: [{ version: 1, name: 'create', sql: notifyRecordsSchema }],
      },
    ]);
    const written: Array<[string | null, string | null]> = [
      ['HTTP 400: {"error":"relation pg_authid: permission denied"}', 'HTTP_STATUS_4XX'],
      ['HTTP 502: <html>bad gateway at 10.0.3.7</html>', 'HTTP_STATUS_5XX'],
      ['not JSON: <html>internal admin</html>', 'ANSWER_INVALID'],
      ['errcode 93000: invalid webhook url', 'ANSWER_REJECTED'],
      ['fetch failed', 'CONNECT_FAILED'],
      ['connect ECONNREFUSED 127.0.0.1:5432', 'CONNECT_FAILED'],
      ['The operation was aborted due to timeout', 'TIMEOUT'],
      ['Invalid login: 535 5.7.8 Authentication failed', 'SEND_FAILED'],
      ['OUTBOUND_REFUSED', 'OUTBOUND_REFUSED'],
      [null, null],
    ];
    for (const [error] of written)
      await db.pool.query(
        `insert into notify_records (tenant_id, source_key, send_way, type, recipient, subject, body, status, error)
         values ('t', $1, 'wechat', 'wechat', 'robot', 's', 'b', 'failed', $2)`,
        [`k${Math.random()}`, error],
      );
    await migrate(
      db.pool,
      commandOwners.filter((o) => o.owner === 'notify.records'),
    );
    const rows = await db.pool.query<{ error: string | null }>('select error from notify_records order by id');
    expect(rows.rows.map((r) => r.error)).toEqual(written.map(([, errorClass]) => errorClass));
  });
});
