import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aliyunSmsQuery, createChannels } from './channels.ts';

/** The channels against real peers on loopback: an SMTP server, and HTTP servers that check the request format and signature. */
const mails: { user: unknown; to: string[]; subject: string; text: string }[] = [];
let smtp: SMTPServer;
let smtpPort = 0;
const refused = new Set<string>();

type Seen = { raw: string; url: URL; body: string };
let answer: (seen: Seen) => { status: number; json: unknown } = () => ({ status: 200, json: {} });
const seen: Seen[] = [];
let web: http.Server;
let base = '';

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    onAuth(auth, _session, done) {
      if (auth.username === 'user' && auth.password === 'pass') return done(null, { user: auth.username });
      done(new Error('535 bad credentials'));
    },
    onRcptTo(address, _session, done) {
      if (refused.has(address.address)) return done(new Error('550 mailbox unavailable'));
      done();
    },
    onData(stream, session, done) {
      simpleParser(stream).then((mail) => {
        const to = [mail.to].flat().flatMap((a) => a?.value.map((v) => v.address ?? '') ?? []);
        mails.push({ user: session.user, to, subject: mail.subject ?? '', text: (mail.text ?? '').trim() });
        done();
      }, done);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpPort = (smtp.server.address() as AddressInfo).port;
  web = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const s = { raw: req.url!, url: new URL(req.url!, 'http://x'), body };
      seen.push(s);
      const a = answer(s);
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.json));
    });
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  await new Promise<void>((resolve) => web.close(() => resolve()));
});

/** Aliyun's signature v1, written here from its documentation rather than taken from the module, and checked against its example below. */
function aliyunSignatureOk(url: URL, secret: string): boolean {
  const params = [...url.searchParams].filter(([k]) => k !== 'Signature');
  const enc = (s: string) => encodeURIComponent(s).replace(/\+/g, '%20').replace(/\*/g, '%2A').replace(/%7E/g, '~');
  const canonical = params
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${enc(k)}=${enc(v)}`)
    .join('&');
  const expected = createHmac('sha1', `${secret}&`)
    .update(`GET&${enc('/')}&${enc(canonical)}`)
    .digest('base64');
  return url.searchParams.get('Signature') === expected;
}

describe('notification channels', () => {
  it('signs like the documentation', () => {
    const documented =
      'AccessKeyId=testId&Action=SendSms&Format=XML&OutId=123&PhoneNumbers=15300000001&RegionId=cn-hangzhou&SignName=%E9%98%BF%E9%87%8C%E4%BA%91%E7%9F%AD%E4%BF%A1%E6%B5%8B%E8%AF%95%E4%B8%93%E7%94%A8' +
      '&SignatureMethod=HMAC-SHA1&SignatureNonce=45e25e9b-0a6f-4070-8c85-2956eda1b466&SignatureVersion=1.0&TemplateCode=SMS_71390007' +
      '&TemplateParam=%7B%22customer%22%3A%22test%22%7D&Timestamp=2017-07-12T02%3A42%3A19Z&Version=2017-05-25&Signature=zJDF%2BLrzhj%2FThnlvIToysFRq6t4%3D';
    expect(aliyunSignatureOk(new URL(`http://x/?${documented}`), 'testSecret')).toBe(true);
    const p = {
      accessKeyId: 'id',
      accessKeySecret: 's',
      phoneNumbers: '1',
      signName: 'n',
      templateCode: 'T',
      templateParam: '{"content":"a b"}',
    };
    const query = aliyunSmsQuery(p, 'nonce', '2026-11-24T10:00:00Z');
    expect(aliyunSignatureOk(new URL(`http://x/?${query}`), 's')).toBe(true);
    expect(aliyunSignatureOk(new URL(`http://x/?${query}`), 'other')).toBe(false);
  });

  it('sends email over SMTP, and rejects when the server refuses the recipient', async () => {
    const sut = createChannels({ smtpUrl: `smtp://user:pass@127.0.0.1:${smtpPort}`, from: 'cloud <noreply@example.com>' });
    await sut.send({ channel: 'email', to: 'ops@example.com', subject: '告警 boiler', body: 'temperature 86.5' });
    expect(mails.at(-1)).toEqual({ user: 'user', to: ['ops@example.com'], subject: '告警 boiler', text: 'temperature 86.5' });
    refused.add('gone@example.com');
    await expect(sut.send({ channel: 'email', to: 'gone@example.com', subject: 's', body: 'b' })).rejects.toThrow(/550|mailbox/);
    // The class is what a tenant sees of it; the message, with the server's reply, is for the log.
    await expect(sut.send({ channel: 'email', to: 'gone@example.com', subject: 's', body: 'b' })).rejects.toMatchObject({
      errorClass: 'SMTP_REJECTED',
    });
    sut.close();
    const wrongLogin = createChannels({ smtpUrl: `smtp://user:wrong@127.0.0.1:${smtpPort}`, from: 'cloud <noreply@example.com>' });
    await expect(wrongLogin.send({ channel: 'email', to: 'ops@example.com', subject: 's', body: 'b' })).rejects.toMatchObject({
      errorClass: 'SMTP_AUTH_FAILED',
    });
    wrongLogin.close();
  });

  it('signs an Aliyun SendSms request, and rejects an answer other than OK with its code', async () => {
    const secret = 'testSecret';
    const sut = createChannels({
      from: 'x',
      sms: { endpoint: base, accessKeyId: 'testId', accessKeySecret: secret, signName: '设备云', templateCode: 'SMS_1' },
    });
    answer = ({ url }) => ({ status: 200, json: aliyunSignatureOk(url, secret) ? { Code: 'OK' } : { Code: 'SignatureDoesNotMatch' } });
    await sut.send({ channel: 'sms', to: '13900000001', subject: 's', body: '温度 86.5 *~' });
    const { raw, url } = seen.at(-1)!;
    expect(url.searchParams.get('PhoneNumbers')).toBe('13900000001');
    expect(url.searchParams.get('Action')).toBe('SendSms');
    expect(url.searchParams.get('Timestamp')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(raw).not.toContain('+');
    expect(JSON.parse(url.searchParams.get('TemplateParam')!)).toEqual({ content: '温度 86.5 *~' });
    expect(aliyunSignatureOk(url, secret)).toBe(true);
    answer = () => ({ status: 200, json: { Code: 'isv.BUSINESS_LIMIT_CONTROL', Message: 'limited' } });
    await expect(sut.send({ channel: 'sms', to: '13900000001', subject: 's', body: 'b' })).rejects.toThrow('isv.BUSINESS_LIMIT_CONTROL');
    await expect(sut.send({ channel: 'sms', to: '13900000001', subject: 's', body: 'b' })).rejects.toMatchObject({
      errorClass: 'ANSWER_REJECTED',
    });
  });

  it('posts text to a WeCom robot, and rejects an HTTP error', async () => {
    const sut = createChannels({ from: 'x', wecomWebhook: `${base}/cgi-bin/webhook/send?key=k1` });
    answer = ({ body }) => {
      const json = JSON.parse(body) as { msgtype: string; text: { content: string } };
      return { status: 200, json: { errcode: json.msgtype === 'text' && json.text.content === 'subject\nbody' ? 0 : 40001 } };
    };
    await sut.send({ channel: 'wechat', to: 'robot', subject: 'subject', body: 'body' });
    expect(seen.at(-1)!.url.searchParams.get('key')).toBe('k1');
    answer = () => ({ status: 500, json: {} });
    await expect(sut.send({ channel: 'wechat', to: 'robot', subject: 's', body: 'b' })).rejects.toThrow('HTTP 500');
    await expect(sut.send({ channel: 'wechat', to: 'robot', subject: 's', body: 'b' })).rejects.toMatchObject({
      errorClass: 'HTTP_STATUS_5XX',
    });
  });

  it("signs a DingTalk robot's request with its timestamp", async () => {
    const secret = 'SECdingtalk';
    const sut = createChannels({ from: 'x', dingtalkWebhook: `${base}/robot/send?access_token=t1`, dingtalkSecret: secret });
    answer = ({ url }) => {
      const timestamp = url.searchParams.get('timestamp')!;
      const sign = createHmac('sha256', secret).update(`${timestamp}\n${secret}`).digest('base64');
      return { status: 200, json: { errcode: url.searchParams.get('sign') === sign ? 0 : 310000, errmsg: 'sign' } };
    };
    await sut.send({ channel: 'dingtalk', to: 'robot', subject: 's', body: 'b' });
    expect(seen.at(-1)!.url.searchParams.get('access_token')).toBe('t1');
    expect(Math.abs(Number(seen.at(-1)!.url.searchParams.get('timestamp')) - Date.now())).toBeLessThan(60_000);

    const unsigned = createChannels({ from: 'x', dingtalkWebhook: `${base}/robot/send` });
    answer = () => ({ status: 200, json: { errcode: 0 } });
    await unsigned.send({ channel: 'dingtalk', to: 'robot', subject: 's', body: 'b' });
    expect(seen.at(-1)!.raw).toBe('/robot/send');
  });

  it('refuses a channel that is not configured', async () => {
    const sut = createChannels({ from: 'x' });
    expect(sut.configured('email')).toBe(false);
    await expect(sut.send({ channel: 'email', to: 'a@b.c', subject: 's', body: 'b' })).rejects.toThrow('not configured');
  });
});
