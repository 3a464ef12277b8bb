import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../harness/free-port.ts';
import { startTestPlatform, TEST_ADMIN_PASSWORD, type TestPlatform } from '../harness/platform.ts';
import { waitFor } from '../harness/process.ts';

interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** With SMTP_URL set, email goes out over SMTP to a real SMTP server (nodemailer's smtp-server) on loopback. */
describe('email over SMTP', () => {
  let t: TestPlatform;
  let smtp: SMTPServer;
  const inbox: Mail[] = [];

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, _session, done) {
        simpleParser(stream)
          .then((mail) => {
            inbox.push({ to: String((mail.to as { text: string }).text), subject: mail.subject ?? '', text: mail.text ?? '' });
            done();
          })
          .catch(done);
      },
    });
    const port = await freePort();
    await new Promise<void>((resolve) => smtp.listen(port, '127.0.0.1', resolve));
    t = await startTestPlatform({ SMTP_URL: `smtp://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    await t?.stop();
    await new Promise<void>((resolve) => smtp?.close(() => resolve()));
  });

  it('mails the verification code and the audit result, and marks them sent in the outbox', async () => {
    const email = 'mail@acme.test';
    expect((await t.api('tenant.sendCode', { body: { method: 'email', target: email } })).status).toBe(200);
    await waitFor('the code mailed', () => inbox.length > 0, 10_000);
    const code = /(\d{6})/.exec(inbox[0]!.text)?.[1] ?? '';
    expect(inbox[0]!.to).toBe(email);
    expect(code).toMatch(/^\d{6}$/);

    const registered = await t.api('tenant.register', {
      body: { tenantName: 'Mail Co', contactName: 'Li', company: 'Mail', method: 'email', email, code, password: 'secret12' },
    });
    expect(registered.status).toBe(200);
    const admin = await t.login('admin', TEST_ADMIN_PASSWORD);
    expect((await t.api('tenant.approve', { token: admin, body: { id: registered.body.data.id } })).status).toBe(200);
    await waitFor('the audit result mailed', () => inbox.length > 1, 10_000);
    expect(inbox[1]).toMatchObject({ to: email, subject: expect.stringContaining('approved') });

    const statuses = async () =>
      (await t.db.pool.query<{ status: string }>(`select status from notify_outbox where recipient = $1 order by id`, [email])).rows.map(
        (r) => r.status,
      );
    await waitFor('both marked sent', async () => (await statuses()).every((s) => s === 'sent'), 10_000);
    expect(await statuses()).toEqual(['sent', 'sent']);
  });
});
