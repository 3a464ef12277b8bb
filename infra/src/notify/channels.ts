import { createHmac, randomUUID } from 'node:crypto';
import net from 'node:net';
import nodemailer from 'nodemailer';
import type { ChannelKind, ChannelMessage, ChannelSender } from '@iot/contracts/ports/channels.ts';
import type { OutboundHttp, OutboundRequest } from '@iot/contracts/ports/outbound-http.ts';
import { parseAllowList } from '../outbound/address.ts';
import { asOutboundError, OutboundError } from '../outbound/errors.ts';
import { createOutboundHttp } from '../outbound/http.ts';

export type { ChannelKind, ChannelMessage, ChannelSender, MailAttachment } from '@iot/contracts/ports/channels.ts';
export interface ChannelConfig {
  /** e.g. smtp://user:pass@127.0.0.1:2525 */
  smtpUrl?: string;
  /** Sender address for email. */
  from: string;
  /** Aliyun SMS: endpoint such as https://dysmsapi.aliyuncs.com, and the template whose `${content}` carries the body. */
  sms?: { endpoint: string; accessKeyId: string; accessKeySecret: string; signName: string; templateCode: string };
  /** WeCom group robot webhook URL. */
  wecomWebhook?: string;
  /** DingTalk robot webhook URL, and its 加签 secret if the robot has one. */
  dingtalkWebhook?: string;
  dingtalkSecret?: string;
}
/** Aliyun's percent-encoding (RFC 3986: spaces as %20, `*` and `~` as Aliyun wants them). */
const percent = (s: string) => encodeURIComponent(s).replace(/\+/g, '%20').replace(/\*/g, '%2A').replace(/%7E/g, '~');

/** The query of an Aliyun SendSms call, signed (RPC signature version 1.0, HMAC-SHA1). */
export function aliyunSmsQuery(
  p: { accessKeyId: string; accessKeySecret: string; phoneNumbers: string; signName: string; templateCode: string; templateParam: string },
  nonce: string,
  timestamp: string,
): URLSearchParams {
  const params: Record<string, string> = {
    AccessKeyId: p.accessKeyId,
    Action: 'SendSms',
    Format: 'JSON',
    PhoneNumbers: p.phoneNumbers,
    RegionId: 'cn-hangzhou',
    SignName: p.signName,
    SignatureMethod: 'HMAC-SHA1',
    SignatureNonce: nonce,
    SignatureVersion: '1.0',
    TemplateCode: p.templateCode,
    TemplateParam: p.templateParam,
    Timestamp: timestamp,
    Version: '2017-05-25',
  };
  const canonical = Object.keys(params)
    .sort()
    .map((k) => `${percent(k)}=${percent(params[k]!)}`)
    .join('&');
  const signature = createHmac('sha1', `${p.accessKeySecret}&`)
    .update(`GET&%2F&${percent(canonical)}`)
    .digest('base64');
  return new URLSearchParams({ ...params, Signature: signature });
}

/** DingTalk's robot signature: base64 HMAC-SHA256 of `timestamp\nsecret` keyed by the secret. */
export function dingtalkSign(secret: string, timestampMs: number): string {
  return createHmac('sha256', secret).update(`${timestampMs}\n${secret}`).digest('base64');
}

/** The server and login an SMTP URL names, and nothing else of it. */
function smtpServerOf(smtpUrl: string) {
  const url = new URL(smtpUrl);
  const secure = url.protocol === 'smtps:';
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(url.port) || (secure ? 465 : 587),
    secure,
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
  };
}

/** Where the platform's own channels (the operator's environment variables) may go: anywhere the operator says. */
const ANYWHERE = parseAllowList('0.0.0.0/0,::/0');

/**
 * The outgoing channels (issue 12): email over SMTP, SMS through Aliyun's HTTP API, WeCom and DingTalk group
 * robots. Every HTTP call (and the SMTP connection) has a timeout, so a hanging gateway fails its record instead of
 * holding the others. Every call and every SMTP connection goes through `outbound` (a tenant's channels: the
 * guard, issue 24); a failure rejects with an `OutboundError` whose class the tenant sees and whose message, for
 * the log, says why.
 */
export function createChannels(config: ChannelConfig, options: { outbound?: OutboundHttp; timeoutMs?: number } = {}): ChannelSender {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const ownOutbound = options.outbound ? null : createOutboundHttp({ allow: ANYWHERE, timeoutMs });
  const outbound = options.outbound ?? ownOutbound!;
  const mail = config.smtpUrl
    ? nodemailer.createTransport({
        // A tenant's URL gives a server and a login, never the mail client's options (its query could set a proxy).
        ...(options.outbound ? smtpServerOf(config.smtpUrl) : { url: config.smtpUrl }),
        connectionTimeout: timeoutMs,
        greetingTimeout: timeoutMs,
        socketTimeout: timeoutMs,
        // Each connection opened to the address the guard checked at that moment (TLS still verifies the name).
        getSocket: (socketOptions, callback) => {
          const host = String(socketOptions.host ?? 'localhost');
          const port = Number(socketOptions.port) || (socketOptions.secure ? 465 : 587);
          outbound.address(host).then(
            ({ address }) => {
              const socket = net.connect({ host: address, port, timeout: timeoutMs });
              const fail = (error: Error) => {
                socket.destroy();
                callback(asOutboundError(error, `SMTP ${host}:${port}`), false);
              };
              socket.once('timeout', () => fail(new OutboundError('TIMEOUT', `SMTP ${host}:${port}: no connection in ${timeoutMs} ms`)));
              socket.once('error', fail);
              socket.once('connect', () => {
                socket.removeListener('error', fail);
                socket.setTimeout(0);
                socket.removeAllListeners('timeout');
                callback(null, { connection: socket });
              });
            },
            (error: unknown) => callback(asOutboundError(error, `SMTP ${host}:${port}`), false),
          );
        },
      })
    : null;
  const configured = (kind: ChannelKind) =>
    kind === 'email' ? !!mail : kind === 'sms' ? !!config.sms : kind === 'wechat' ? !!config.wecomWebhook : !!config.dingtalkWebhook;

  /** The answer of a JSON API; only the class of a failure is for the tenant, the peer's body only for the log. */
  async function json(url: string, init: OutboundRequest): Promise<Record<string, unknown>> {
    const response = await outbound.request(url, { ...init, timeoutMs });
    if (!response.ok) {
      const status = response.status >= 500 ? 'HTTP_STATUS_5XX' : response.status >= 400 ? 'HTTP_STATUS_4XX' : 'HTTP_STATUS_3XX';
      throw new OutboundError(status, `HTTP ${response.status}: ${response.text.slice(0, 200)}`);
    }
    try {
      return JSON.parse(response.text) as Record<string, unknown>;
    } catch {
      throw new OutboundError('ANSWER_INVALID', `not JSON: ${response.text.slice(0, 200)}`);
    }
  }
  const robot = async (url: string, m: ChannelMessage) => {
    const answer = await json(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ msgtype: 'text', text: { content: `${m.subject}\n${m.body}` } }),
    });
    if (answer.errcode !== 0)
      throw new OutboundError('ANSWER_REJECTED', `errcode ${String(answer.errcode)}: ${String(answer.errmsg ?? '')}`);
  };

  return {
    configured,
    async send(m) {
      if (!configured(m.channel)) throw new OutboundError('SEND_FAILED', `channel ${m.channel} not configured`);
      switch (m.channel) {
        case 'email':
          try {
            await mail!.sendMail({
              from: config.from,
              to: m.to,
              subject: m.subject,
              text: m.body,
              attachments: m.attachments?.map((a) => ({
                filename: a.filename,
                contentType: a.contentType,
                content: Buffer.from(a.content),
              })),
            });
          } catch (error) {
            throw asOutboundError(error, 'SMTP');
          }
          return;
        case 'sms': {
          const sms = config.sms!;
          const query = aliyunSmsQuery(
            { ...sms, phoneNumbers: m.to, templateParam: JSON.stringify({ content: m.body }) },
            randomUUID(),
            new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
          );
          // Aliyun's encoding rather than URLSearchParams' form encoding, so the gateway decodes what was signed.
          const search = [...query].map(([k, v]) => `${percent(k)}=${percent(v)}`).join('&');
          const answer = await json(`${sms.endpoint.replace(/\/$/, '')}/?${search}`, { method: 'GET' });
          if (answer.Code !== 'OK') throw new OutboundError('ANSWER_REJECTED', `${String(answer.Code)}: ${String(answer.Message ?? '')}`);
          return;
        }
        case 'wechat':
          return robot(config.wecomWebhook!, m);
        case 'dingtalk': {
          let url = config.dingtalkWebhook!;
          if (config.dingtalkSecret) {
            const timestamp = Date.now();
            url += `${url.includes('?') ? '&' : '?'}timestamp=${timestamp}&sign=${encodeURIComponent(dingtalkSign(config.dingtalkSecret, timestamp))}`;
          }
          return robot(url, m);
        }
      }
    },
    close: () => {
      mail?.close();
      void ownOutbound?.close();
    },
  };
}
