import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { errorCatalogue, messageOf, type ErrorCode } from '@iot/contracts';

/** A NUL, or half of a UTF-16 surrogate pair: no text anyone typed, and PostgreSQL refuses both. */
// eslint-disable-next-line no-control-regex -- the NUL is what it looks for
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The path of the first string in `value` that cannot be stored, or null. */
export function unstorableField(value: unknown, at: string): string | null {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? at : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorableField(value[i], `${at}.${i}`);
      if (found) return found;
    }
    return null;
  }
  // Parsed JSON is plain objects and arrays; a streamed upload (a Node stream) is judged by its own handler.
  if (value && typeof value === 'object' && (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null)) {
    for (const [key, item] of Object.entries(value)) {
      const found = unstorableField(key, `${at}.${key}`) ?? unstorableField(item, `${at}.${key}`);
      if (found) return found;
    }
  }
  return null;
}

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // Radix themes and echarts set inline styles.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self' ws: wss:",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

/**
 * What every answer carries (issue 9): strings that cannot be stored refused with 400 before any handler,
 * security headers on every answer, `no-store` on the API's.
 */
export function registerHardening(app: FastifyInstance): void {
  app.addHook('preValidation', async (request, reply) => {
    const field = unstorableField(request.body, 'body') ?? unstorableField(request.query, 'querystring');
    if (field)
      return reply.status(400).send({
        code: 400,
        msg: `${messageOf('VALIDATION', request.lang)}: ${field}`,
        data: { error: 'VALIDATION', fields: [{ field, message: 'contains a NUL or an unpaired surrogate' }] },
      });
  });
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'same-origin');
    reply.header('x-frame-options', 'DENY');
    if (!request.url.startsWith('/docs')) reply.header('content-security-policy', CSP);
    if (request.url.startsWith('/api/') && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
}

/** Errors Node answers before Fastify sees a request (431 headers too large, 400 malformed): in the envelope too. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const code: ErrorCode = error.code === 'HPE_HEADER_OVERFLOW' ? 'HEADERS_TOO_LARGE' : 'VALIDATION';
  const status = code === 'HEADERS_TOO_LARGE' ? 431 : 400;
  const body = JSON.stringify({ code: status, msg: errorCatalogue[code].zh, data: { error: code } });
  socket.end(
    `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
