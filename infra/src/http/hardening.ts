import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest, FastifyTypeProvider } from 'fastify';
import type { AnyFastify } from './instance.ts';
import { errorCatalogue, messageOf, unstorable, type ErrorCode } from '@iot/contracts';
import { replyError, replyInvalid } from './envelope.ts';

/** Deeper than any body of the route table (a thing model's struct in an array is a handful of levels). */
export const MAX_BODY_DEPTH = 32;

const isPlain = (value: object) => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/**
 * The first thing in parsed input that no handler should see: a string that cannot be stored (at its path), or
 * nesting deeper than MAX_BODY_DEPTH. Walked with a stack of its own, so that no depth overflows the call stack.
 */
export function badInput(value: unknown, at: string): { field: string; reason: 'TEXT_UNSTORABLE' | 'BODY_TOO_DEEP' } | null {
  const stack: Array<{ value: unknown; at: string; depth: number }> = [{ value, at, depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value === 'string') {
      if (unstorable(item.value)) return { field: item.at, reason: 'TEXT_UNSTORABLE' };
      continue;
    }
    // Parsed JSON is plain objects and arrays; a streamed upload (a Node stream) is judged by its own handler.
    if (!item.value || typeof item.value !== 'object' || (!Array.isArray(item.value) && !isPlain(item.value))) continue;
    if (item.depth >= MAX_BODY_DEPTH) return { field: item.at, reason: 'BODY_TOO_DEEP' };
    const entries = Array.isArray(item.value) ? item.value.map((v, i) => [String(i), v] as const) : Object.entries(item.value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      const path = `${item.at}.${key}`;
      if (!Array.isArray(item.value) && unstorable(key)) return { field: path, reason: 'TEXT_UNSTORABLE' };
      stack.push({ value: child, at: path, depth: item.depth + 1 });
    }
  }
  return null;
}

/** The policy of every page; `streamSources` are where cameras' HLS streams are fetched from (hls.js plays them through a blob:). */
const cspOf = (streamSources: string) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    // Radix themes and echarts set inline styles.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    `connect-src 'self' ws: wss: ${streamSources}`.trim(),
    `media-src 'self' blob: ${streamSources}`.trim(),
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join('; ');

/**
 * What every answer carries (issue 9): strings that cannot be stored refused with 400 before any handler,
 * security headers on every answer, `no-store` on the API's.
 */
export function registerHardening<P extends FastifyTypeProvider>(app: AnyFastify<P>, streamSources = ''): void {
  const CSP = cspOf(streamSources);
  app.addHook('preValidation', refuseBadInput);
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'same-origin');
    reply.header('x-frame-options', 'DENY');
    if (!request.url.startsWith('/docs')) reply.header('content-security-policy', CSP);
    if (request.url.startsWith('/api/') && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
}

/** Strings that cannot be stored, and bodies nested too deep, refused with 400 before validation and any handler. */
async function refuseBadInput(request: FastifyRequest, reply: FastifyReply) {
  // The query parser's object has a prototype of its own (not Object's): copied, it is walked like a body.
  const query = request.query && typeof request.query === 'object' ? { ...request.query } : request.query;
  const found = badInput(request.body, 'body') ?? badInput(query, 'querystring');
  if (found?.reason === 'BODY_TOO_DEEP')
    return replyError(reply, request, 'BODY_TOO_DEEP', {
      fields: [{ field: found.field, message: messageOf('BODY_TOO_DEEP', request.lang) }],
    });
  if (found)
    return replyInvalid(reply, request, [{ field: found.field, message: messageOf(found.reason, request.lang), reason: found.reason }]);
}

/** The headers of every device route's answer (the fast path before Fastify sets the same). */
export const deviceHeaders = (streamSources = '') => ({
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'content-security-policy': cspOf(streamSources),
  'cache-control': 'no-store',
});

/**
 * The same for the device routes (the HTTP ingest), whose paths are all under /api/ and none a page: the same
 * headers, set once as the request arrives rather than in a hook on every answer.
 */
export function registerDeviceHardening<P extends FastifyTypeProvider>(app: AnyFastify<P>, streamSources = ''): void {
  const headers = deviceHeaders(streamSources);
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
  app.addHook('preValidation', refuseBadInput);
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
