import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { DomainError } from '@iot/contracts';
import type { ErasedHandler, Ports, RequestContext } from '@iot/contracts/http/handler.ts';
import type { RouteSpec } from '@iot/contracts/http/route.ts';
import { errorBody, langOf, ok } from './envelope.ts';
import { badInput } from './hardening.ts';
import { idempotencyKeyOf, READ_POSITION_HEADER } from './route-table.ts';

/** A request the fast path hands back: answered by Fastify's route as if it had come straight there. */
export interface Replay {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  payload: Buffer;
  remoteAddress: string | undefined;
}

export interface DeviceFastPathOptions {
  /** The device routes served here (a POST with a JSON body, no read models): by name. */
  routes: Readonly<Record<string, RouteSpec>>;
  handlers: Readonly<Record<string, ErasedHandler>>;
  ports: Ports;
  bodyLimit: number;
  /** The security headers every device answer carries (registerDeviceHardening's). */
  headers: Readonly<Record<string, string>>;
  /** Fastify's own answer to a request (app.inject): for the rare one the fast path does not judge itself. */
  replay(request: Replay): Promise<{ statusCode: number; headers: Record<string, unknown>; rawPayload: Buffer }>;
  logger: FastifyBaseLogger;
}

const isJson = (type: string | undefined) =>
  type !== undefined && (type === 'application/json' || /^application\/json\s*;\s*charset=utf-8\s*$/i.test(type));
/** Keys secure-json-parse (Fastify's JSON parser) refuses: such a body goes to Fastify for its own answer. */
const POISON = /__proto__|constructor|\\u/;

/**
 * The HTTP ingest before Fastify's routing (issue 23): a device's POST of JSON to a device route, served on the bare
 * request at a fraction of the cost of Fastify's hooks, routing and reply (most of a report's CPU). What it answers
 * is what the route would: the body validated by the route table's schema, the handler called, the answer in the
 * envelope with the device routes' headers. Anything it does not judge itself (another content type, a chunked or
 * too large body, bad JSON, a refused body) goes to the Fastify route, unread, or replayed with its bytes, so that
 * every refusal is the route's own. Returns whether it took the request.
 */
export function createDeviceFastPath(options: DeviceFastPathOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const byUrl = new Map<string, { name: string; spec: RouteSpec; handler: ErasedHandler }>();
  for (const [name, spec] of Object.entries(options.routes)) {
    // Only what the fast path serves the way the route table does: a JSON body, no query, no read models to wait for.
    if (spec.method !== 'POST' || !spec.body || spec.query || spec.consumes || spec.produces || spec.reads.length > 0) continue;
    byUrl.set(spec.path, { name, spec, handler: options.handlers[name]! });
  }
  const noCookie = { set: () => undefined, clear: () => undefined };

  const answer = (res: ServerResponse, requestId: string, status: number, body: unknown, extra?: Record<string, string>) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      ...options.headers,
      ...extra,
      'x-request-id': requestId,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  };

  const replay = async (req: IncomingMessage, res: ServerResponse, payload: Buffer) => {
    const replayed = await options.replay({
      method: req.method!,
      url: req.url!,
      headers: req.headers,
      payload,
      remoteAddress: req.socket.remoteAddress,
    });
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(replayed.headers)) {
      // Framing is this response's own.
      if (name === 'content-length' || name === 'transfer-encoding' || name === 'connection' || name === 'keep-alive' || name === 'date')
        continue;
      if (typeof value === 'string' || Array.isArray(value)) headers[name] = value as string | string[];
      else if (typeof value === 'number') headers[name] = String(value);
    }
    res.writeHead(replayed.statusCode, { ...headers, 'content-length': replayed.rawPayload.length });
    res.end(replayed.rawPayload);
  };

  const serve = async (
    req: IncomingMessage,
    res: ServerResponse,
    route: { spec: RouteSpec; handler: ErasedHandler },
    payload: Buffer,
  ): Promise<void> => {
    const text = payload.toString('utf8');
    let json: unknown;
    try {
      json = POISON.test(text) ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    // Bad JSON, a poisoned key, a string that cannot be stored, too deep, a field the schema refuses: Fastify's answer.
    const parsed = json === undefined || badInput(json, 'body') ? null : route.spec.body!.safeParse(json);
    if (!parsed?.success) return replay(req, res, payload);
    const lang = langOf(req.headers);
    const requestIdHeader = req.headers['x-request-id'];
    const requestId = typeof requestIdHeader === 'string' ? requestIdHeader : randomUUID();
    let position: string | null = null;
    const idempotencyKey = idempotencyKeyOf(req.headers);
    const ctx: RequestContext = {
      caller: null,
      lang,
      // The socket's peer: a device route reads no address (behind a trusted proxy Fastify would name the client).
      ip: req.socket.remoteAddress ?? '',
      requestId,
      ...(idempotencyKey ? { idempotencyKey } : {}),
      stationId: null,
      cookie: noCookie,
      ports: options.ports,
      wrote: (p) => {
        position = p;
      },
    };
    try {
      const data = await route.handler({ body: parsed.data, query: {} }, ctx);
      // The response schema, as Fastify's serializer applies it: only the declared fields leave.
      answer(res, requestId, 200, ok(route.spec.response.parse(data)), position ? { [READ_POSITION_HEADER]: position } : undefined);
    } catch (error) {
      if (error instanceof DomainError) {
        const body = errorBody(error.code, lang, error.details ? { details: error.details } : null);
        return answer(res, requestId, body.code, body);
      }
      options.logger.error({ err: error, reqId: requestId }, 'request failed');
      answer(res, requestId, 500, errorBody('INTERNAL', lang));
    }
  };

  return (req, res) => {
    if (req.method !== 'POST') return false;
    const route = byUrl.get(req.url!);
    if (!route) return false;
    const length = Number(req.headers['content-length']);
    // The common case only: a JSON body of a declared, allowed length; the rest is Fastify's to judge.
    if (!(length > 0 && length <= options.bodyLimit) || req.headers['transfer-encoding'] || !isJson(req.headers['content-type']))
      return false;
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
    });
    req.on('end', () => {
      const payload = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      serve(req, res, route, payload).catch((error: unknown) => {
        options.logger.error({ err: error }, 'device request failed');
        if (!res.headersSent) answer(res, randomUUID(), 500, errorBody('INTERNAL', 'zh'));
      });
    });
    return true;
  };
}
