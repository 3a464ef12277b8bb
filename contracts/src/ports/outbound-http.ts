/**
 * Outbound calls to addresses a tenant sets (notification channels, forwarding targets, webhooks): one guard for
 * all of them (ARCHITECTURE.md "Doors"). After DNS resolution, on every address a name resolves to and on every
 * redirect, no loopback, unspecified, private, shared (CGNAT), link-local (cloud metadata), multicast, broadcast or
 * reserved address is called, unless the platform operator allows its range (OUTBOUND_ALLOW_CIDRS); the connection
 * goes to the address that was checked, so a name cannot resolve to another one in between.
 */

/** Why an outbound call failed, as the tenant may see it: a class, never the peer's answer or the reason in detail. */
export const outboundErrorClasses = [
  /** The address is one the guard refuses: nothing was sent, no connection was tried. */
  'OUTBOUND_REFUSED',
  'CONNECT_FAILED',
  'TIMEOUT',
  'TOO_MANY_REDIRECTS',
  'HTTP_STATUS_3XX',
  'HTTP_STATUS_4XX',
  'HTTP_STATUS_5XX',
  /** The peer answered something that is not its API's answer (not JSON). */
  'ANSWER_INVALID',
  /** The peer's API answered with an error of its own (an errcode, a Code other than OK). */
  'ANSWER_REJECTED',
  'SMTP_AUTH_FAILED',
  /** The SMTP server refused the sender, a recipient or the message. */
  'SMTP_REJECTED',
  'SEND_FAILED',
] as const;
export type OutboundErrorClass = (typeof outboundErrorClasses)[number];

/** What each class tells a person, in both languages (a notification record's error column). */
export const outboundErrorText: Record<OutboundErrorClass, { zh: string; en: string }> = {
  OUTBOUND_REFUSED: { zh: '目标地址不允许访问（内网、本机或保留地址）', en: 'The address is not allowed (internal, loopback or reserved)' },
  CONNECT_FAILED: { zh: '无法连接目标服务器', en: 'Could not connect to the server' },
  TIMEOUT: { zh: '连接或应答超时', en: 'The connection or the answer timed out' },
  TOO_MANY_REDIRECTS: { zh: '重定向次数过多', en: 'Too many redirects' },
  HTTP_STATUS_3XX: { zh: '服务器应答重定向但没有目标', en: 'The server answered a redirect without a target' },
  HTTP_STATUS_4XX: { zh: '服务器拒绝了请求（4xx）', en: 'The server refused the request (4xx)' },
  HTTP_STATUS_5XX: { zh: '服务器出错（5xx）', en: 'The server failed (5xx)' },
  ANSWER_INVALID: { zh: '服务器应答格式不正确', en: 'The server answered in an unexpected format' },
  ANSWER_REJECTED: { zh: '服务接口返回错误', en: "The service's API answered an error" },
  SMTP_AUTH_FAILED: { zh: '邮件服务器登录失败', en: 'The mail server refused the login' },
  SMTP_REJECTED: { zh: '邮件服务器拒收', en: 'The mail server refused the message' },
  SEND_FAILED: { zh: '发送失败', en: 'Sending failed' },
};

export interface OutboundRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** For the whole call, redirects included. */
  timeoutMs?: number;
}
/** The final answer after redirects; its body read up to a cap (a peer cannot fill the memory). */
export interface OutboundAnswer {
  status: number;
  ok: boolean;
  text: string;
}

/** What an outbound call rejects with: an Error whose `errorClass` the tenant may see; its message is for the log. */
export interface OutboundFailure extends Error {
  errorClass: OutboundErrorClass;
}

export interface OutboundHttp {
  /** Calls an http(s) URL through the guard, following up to a few redirects, each one checked again. */
  request(url: string, init?: OutboundRequest): Promise<OutboundAnswer>;
  /**
   * The address to open a connection to for a host a tenant set (an SMTP server): resolved now, every address
   * it resolves to checked; connect to the answer, not to the name.
   */
  address(host: string): Promise<{ address: string; family: 4 | 6 }>;
  /** The save-time check: whether a URL names a refused address as written (an IP literal in any spelling, `localhost`), without resolving it. */
  refusesLiteral(url: string): boolean;
}
