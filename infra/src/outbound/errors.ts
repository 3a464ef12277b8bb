import type { OutboundErrorClass, OutboundFailure } from '@iot/contracts/ports/outbound-http.ts';

/** A failed outbound call: the class a tenant may see, and in the message the detail for the platform log. */
export class OutboundError extends Error implements OutboundFailure {
  constructor(
    readonly errorClass: OutboundErrorClass,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(detail, options);
    this.name = 'OutboundError';
  }
}

const timeoutCodes = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
/** nodemailer's error codes, by what they tell. */
const smtpCodes: Record<string, OutboundErrorClass> = {
  EAUTH: 'SMTP_AUTH_FAILED',
  ENOAUTH: 'SMTP_AUTH_FAILED',
  EENVELOPE: 'SMTP_REJECTED',
  EMESSAGE: 'SMTP_REJECTED',
  ECONNECTION: 'CONNECT_FAILED',
  ESOCKET: 'CONNECT_FAILED',
  EDNS: 'CONNECT_FAILED',
  ETLS: 'CONNECT_FAILED',
  EPROTOCOL: 'ANSWER_INVALID',
};

/** The class of any error an outbound call rejected with: the guard's own, a timeout, a failed connection. */
export function errorClassOf(error: unknown): OutboundErrorClass {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof OutboundError) return e.errorClass;
    const { name, code } = e as { name?: string; code?: string };
    if (name === 'TimeoutError' || name === 'AbortError' || (code && timeoutCodes.has(code))) return 'TIMEOUT';
    if (code && smtpCodes[code]) return smtpCodes[code];
    if (code && /^(E[A-Z]+|UND_ERR_SOCKET)$/.test(code)) return 'CONNECT_FAILED';
  }
  return 'SEND_FAILED';
}

/** Wraps what a call rejected with, keeping a class already given. */
export const asOutboundError = (error: unknown, where: string): OutboundError =>
  error instanceof OutboundError
    ? error
    : new OutboundError(errorClassOf(error), `${where}: ${(error as Error)?.message ?? String(error)}`, { cause: error });
