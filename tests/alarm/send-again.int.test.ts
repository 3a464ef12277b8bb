import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../harness/platform.ts';
import { waitFor } from '../harness/process.ts';
import { uniquePhone } from '../harness/phone.ts';

/**
 * Notification records as the records screen and the bell use them (issue 22): "send again" over each status,
 * and marking one's own inbox read allowed to whoever sees the bell, the auditor included.
 */
let sut: TestPlatform;
let token: string;
const ok = (r: { status: number; body: string; json: { data: any } | null }) => {
  expect(r.status, r.body).toBe(200);
  return r.json!.data;
};

/** A record of the tenant in the outbox, as the notification reactor writes it, with the status given. */
async function record(tenantId: string, key: string, status: 'unsent' | 'sent' | 'failed', sendWay = 'email'): Promise<string> {
  const { rows } = await sut.db.pool.query<{ id: string }>(
    `insert into notify_records (tenant_id, source_key, send_way, type, recipient, subject, body, status, error, attempts, next_at, sent_at, via)
     values ($1, $2, $3, 'email', 'duty@example.com', $2, 'body', $4, $5, $6, now() + interval '1 day', $7, $8) returning id::text`,
    [
      tenantId,
      key,
      sendWay,
      status,
      status === 'failed' ? 'connection refused' : null,
      status === 'unsent' ? 0 : 5,
      status === 'sent' ? new Date() : null,
      status === 'sent' ? 'outbox' : null,
    ],
  );
  return rows[0]!.id;
}
const recordsOf = async (subject: string) =>
  (
    await sut.db.pool.query<{ status: string; attempts: number; error: string | null }>(
      'select status, attempts, error from notify_records where subject = $1 order by id',
      [subject],
    )
  ).rows;

beforeAll(async () => {
  sut = await startTestPlatform();
  await sut.seedTenant({ id: 'romeo', name: 'romeoCo', adminUsername: 'romeoAdmin', adminPassword: 'Romeo#pw1' });
  await sut.seedTenant({ id: 'sierra', name: 'sierraCo', adminUsername: 'sierraAdmin', adminPassword: 'Sierra#pw1' });
  token = await sut.login('romeoAdmin', 'Romeo#pw1');
}, 180_000);
afterAll(async () => sut?.stop());

describe('send again', () => {
  it('sends a failed record anew: tried again from the first attempt, and sent', async () => {
    const id = await record('romeo', 'failed-one', 'failed');
    expect(ok(await sut.call('notifyRecord.retry', { token, body: { ids: [id] } })).updated).toBe(1);
    // The delivery worker takes it again: no channel is set, so it goes to the local outbox.
    const [again] = await waitFor('the failed record sent', async () => {
      const rows = await recordsOf('failed-one');
      return rows[0]?.status === 'sent' ? rows : null;
    });
    expect(again).toMatchObject({ status: 'sent', error: null });
  });

  it('sends a sent record once more as a new record, keeping the one that went', async () => {
    const id = await record('romeo', 'sent-one', 'sent');
    expect(ok(await sut.call('notifyRecord.retry', { token, body: { ids: [id] } })).updated).toBe(1);
    const rows = await waitFor('the copy sent', async () => {
      const all = await recordsOf('sent-one');
      return all.length === 2 && all.every((r) => r.status === 'sent') ? all : null;
    });
    expect(rows[0]!.attempts).toBe(5);
  });

  it('leaves an unsent record on its way, and sends a mixed selection of all three', async () => {
    const unsent = await record('romeo', 'unsent-one', 'unsent');
    expect(ok(await sut.call('notifyRecord.retry', { token, body: { ids: [unsent] } })).updated).toBe(0);
    const mixed = [await record('romeo', 'mixed', 'failed'), await record('romeo', 'mixed-sent', 'sent'), unsent];
    expect(ok(await sut.call('notifyRecord.retry', { token, body: { ids: mixed } })).updated).toBe(2);
    expect((await recordsOf('unsent-one')).length).toBe(1);
  });

  it("answers that another tenant's record does not exist, and sends nothing of it", async () => {
    const theirs = await record('sierra', 'theirs', 'sent');
    const r = await sut.call('notifyRecord.retry', { token, body: { ids: [theirs] } });
    expect(r.status).toBe(404);
    expect((await recordsOf('theirs')).length).toBe(1);
  });
});

describe("one's own inbox", () => {
  it('is marked read by an auditor, who may list the records but change nothing of the tenant', async () => {
    const roles = ok(await sut.call('role.list', { token, query: { pageSize: '50' } })).rows as {
      id: string;
      builtin: string | null;
    }[];
    ok(
      await sut.call('user.create', {
        token,
        body: {
          username: 'romeoAudit',
          password: 'Romeo#pw2',
          email: 'audit@romeo.example',
          phone: uniquePhone(),
          sex: 'male',
          status: 'enabled',
          roleIds: [roles.find((r) => r.builtin === 'auditor')!.id],
        },
      }),
    );
    await sut.platform.runner.catchUp();
    await record('romeo', 'inbox-one', 'sent', 'inApp');
    const auditor = await sut.login('romeoAudit', 'Romeo#pw2');
    expect(ok(await sut.call('notifyRecord.unread', { token: auditor })).unread).toBe(1);
    expect(ok(await sut.call('notifyRecord.read', { token: auditor, body: {} })).updated).toBe(1);
    expect(ok(await sut.call('notifyRecord.unread', { token: auditor })).unread).toBe(0);
    // Still no write to the tenant's records.
    expect((await sut.call('notifyRecord.retry', { token: auditor, body: { ids: ['1'] } })).status).toBe(403);
  });
});
