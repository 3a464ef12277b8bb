import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { DomainError, envelope, errorCatalogue, type ErrorCode } from '@iot/contracts';
import type { ErasedHandler, Ports, RequestContext } from '@iot/contracts/http/handler.ts';
import { isWorkflow, type ReadModel } from '@iot/contracts/http/read-models.ts';
import { isRawAnswer, type RouteSpec, type RouteTable } from '@iot/contracts/http/route.ts';
import type { App } from './context.ts';
import { mountTusRoute, type TusOptions } from './tus.ts';
import { ok } from './envelope.ts';

/** How long a write waits for its read models before it answers with the position instead. */
export const READ_YOUR_WRITES_TIMEOUT_MS = 2_000;
/** A read carrying a position (header `x-read-position`) waits at most this long for it. */
export const READ_POSITION_HEADER = 'x-read-position';

/** Where each read model stands: the projections' checkpoints, as the API process sees them. */
export interface ReadModelWatch {
  /** Where `models` stand now, as one string: equal strings, equal read models. */
  positions(models: readonly ReadModel[]): Promise<string>;
  /** Resolves true once every one of `models` has applied the log up to `position`, false after `timeoutMs`. */
  waitFor(models: readonly ReadModel[], position: string, timeoutMs: number): Promise<boolean>;
}

/** What a route that declares no query or body accepts. */
const nothing = z.object({}).strict();

const MAX_CACHED_ANSWERS = 2_000;
/** The answer's `data` as the response schema outputs it (what the serializer would send). */
const envelopeData = (spec: RouteSpec, data: unknown) => spec.response.parse(data);

/** Every route documents the errors any route may answer, beside its own. */
const commonErrors: ErrorCode[] = ['VALIDATION', 'UNAUTHENTICATED', 'FORBIDDEN', 'RATE_LIMITED', 'INTERNAL'];

const errorEnvelope = z.object({
  code: z.number().int(),
  msg: z.string(),
  data: z.object({ error: z.string() }).loose(),
});

function responseSchemas(spec: RouteSpec): Record<number, z.ZodType> {
  const out: Record<number, z.ZodType> = {};
  if (!spec.produces) out[200] = envelope(spec.response);
  for (const code of [...commonErrors, ...(spec.errors ?? [])]) {
    const status = errorCatalogue[code].status;
    if (status !== 200 && !out[status]) out[status] = errorEnvelope.describe(`error, e.g. ${code}`);
  }
  return out;
}

/** The larger of two `a:b` positions (both event store adapters encode them so). */
export function laterPosition(a: string | null, b: string): string {
  if (!a) return b;
  const [a1, a2] = a.split(':').map(BigInt) as [bigint, bigint];
  const [b1, b2] = b.split(':').map(BigInt) as [bigint, bigint];
  return a1 > b1 || (a1 === b1 && a2 >= b2) ? a : b;
}

export interface RouteTableOptions {
  ports: Ports;
  watch: ReadModelWatch;
  /** Sets and clears the `token` cookie on a reply (the adapter knows the domain and whether the request is HTTPS). */
  cookie(request: FastifyRequest, reply: FastifyReply): RequestContext['cookie'];
  readYourWritesTimeoutMs?: number;
  /** Where routes that consume `tus` keep uploads until their last byte (a table with such a route needs it). */
  tus?: TusOptions;
}

/** A request's Idempotency-Key header, when it is one (1-128 characters). */
export const idempotencyKeyOf = (headers: IncomingHttpHeaders): string | undefined => {
  const key = headers['idempotency-key'];
  return typeof key === 'string' && key.length > 0 && key.length <= 128 ? key : undefined;
};

/**
 * Binds a route table to its handlers: one Fastify route per entry, with the table's permission, schemas
 * (validation and OpenAPI) and read models. Handlers never see Fastify.
 */
export function registerRouteTable<T extends RouteTable>(
  app: App,
  routes: T,
  handlers: Readonly<Record<string, ErasedHandler>>,
  options: RouteTableOptions,
): void {
  const timeoutMs = options.readYourWritesTimeoutMs ?? READ_YOUR_WRITES_TIMEOUT_MS;
  /** Answers of `cache` routes by route, caller scope, query and read-model positions (oldest dropped first). */
  const answers = new Map<string, string>();
  /** Workflows first (their steps append more), then the read models at the head they left. */
  const waitForReads = async (reads: readonly ReadModel[], position: string): Promise<boolean> => {
    const deadline = Date.now() + timeoutMs;
    const workflows = reads.filter(isWorkflow);
    const models = reads.filter((r) => !isWorkflow(r));
    if (workflows.length > 0) {
      if (!(await options.watch.waitFor(workflows, position, timeoutMs))) return false;
      position = laterPosition(position, (await options.ports.store.headPosition()) ?? position);
    }
    return models.length === 0 || options.watch.waitFor(models, position, Math.max(0, deadline - Date.now()));
  };
  /** Where each request's appends got to: what its answer waits for. */
  const positions = new WeakMap<RequestContext, string>();
  const contextOf = (request: FastifyRequest, reply: FastifyReply): RequestContext => {
    const ctx: RequestContext = {
      // Null in a context without sessions (the device routes).
      caller: request.principal ?? null,
      lang: request.lang,
      ip: request.ip,
      requestId: request.id,
      idempotencyKey: idempotencyKeyOf(request.headers),
      stationId: request.stationId ?? null,
      ...(typeof request.headers.range === 'string' ? { range: request.headers.range } : {}),
      cookie: options.cookie(request, reply),
      ports: options.ports,
      wrote: (p) => {
        positions.set(ctx, laterPosition(positions.get(ctx) ?? null, p));
      },
    };
    return ctx;
  };
  /** A finished upload's answer waits for its read models like a write route's, or tells the position. */
  const recorded = async (ctx: RequestContext, reads: readonly ReadModel[]): Promise<Record<string, string>> => {
    const position = positions.get(ctx);
    if (!position) return {};
    await waitForReads(reads, position);
    return { [READ_POSITION_HEADER]: position };
  };
  for (const [name, spec] of Object.entries(routes) as [string, RouteSpec][]) {
    const handler: ErasedHandler | undefined = handlers[name];
    if (!handler) throw new Error(`route ${name} (${spec.method} ${spec.path}) has no handler`);
    if (spec.consumes === 'tus') {
      if (!options.tus) throw new Error(`route ${name} takes resumable uploads: the route table needs a tus store`);
      // Its errors are documented like any route's; its 201 and 204 are the tus protocol's own answers.
      const { 200: _ok, ...errors } = responseSchemas(spec);
      mountTusRoute(app, name, spec, handler, options.tus, contextOf, recorded, errors);
      continue;
    }
    app.route({
      method: spec.method,
      url: spec.path,
      config: { permission: spec.permission },
      schema: {
        operationId: name,
        tags: [spec.tag],
        summary: spec.summary,
        // A route that declares no query or body takes none: an unknown field is refused, not ignored.
        querystring: spec.query ?? nothing,
        ...(spec.body
          ? { body: spec.body }
          : !spec.consumes && (spec.method === 'POST' || spec.method === 'PUT')
            ? { body: nothing.nullish() }
            : {}),
        response: responseSchemas(spec),
      },
      handler: async (request, reply) => {
        const readAt = request.headers[READ_POSITION_HEADER];
        if (typeof readAt === 'string' && /^\d+:\d+$/.test(readAt) && spec.reads.length > 0)
          await options.watch.waitFor(spec.reads, readAt, timeoutMs);
        let cacheKey: string | null = null;
        if (spec.cache && spec.method === 'GET' && request.principal) {
          const p = request.principal;
          const who = spec.cache === 'caller' ? `${p.kind}:${p.id}` : p.tenantId;
          cacheKey = `${name}\0${who}\0${request.stationId ?? ''}\0${request.lang}\0${JSON.stringify(request.query)}\0${await options.watch.positions(spec.reads)}`;
          const hit = answers.get(cacheKey);
          if (hit) return reply.type('application/json').send(hit);
        }
        const ctx = contextOf(request, reply);
        // A streamed route given anything but a spreadsheet's bytes (JSON, a form) is told which files it takes.
        if (
          spec.consumes === 'file' &&
          typeof (request.body as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] !== 'function'
        )
          throw new DomainError('FILE_TYPE');
        const body =
          spec.consumes === 'file'
            ? {
                stream: request.body as AsyncIterable<Uint8Array>,
                contentType: request.headers['content-type'] ?? '',
                length: request.headers['content-length'] ? Number(request.headers['content-length']) : null,
              }
            : request.body;
        const data = await handler({ body, query: request.query }, ctx);
        const position = positions.get(ctx) ?? null;
        if (isRawAnswer(data)) {
          if (data.status) reply.status(data.status);
          reply.header('content-type', data.contentType);
          if (data.filename) reply.header('content-disposition', `attachment; filename="${data.filename}"`);
          if (data.headers) reply.headers(data.headers);
          const body = data.body;
          return reply.send(typeof body === 'string' || body instanceof Uint8Array ? body : Readable.from(body));
        }
        if (position) {
          reply.header(READ_POSITION_HEADER, position);
          // The events are committed: past the timeout the write still succeeds, telling where its reads will be.
          const caughtUp = await waitForReads(spec.reads, position);
          if (!caughtUp) {
            const late =
              data !== null && typeof data === 'object' && !Array.isArray(data) ? { ...(data as object), position } : { position };
            // A string skips the response schema, which would strip the position.
            return reply.type('application/json').send(JSON.stringify(ok(late)));
          }
        }
        if (cacheKey) {
          // Serialised once through the route's schema, then kept as text.
          const text = JSON.stringify(ok(envelopeData(spec, data)));
          if (answers.size >= MAX_CACHED_ANSWERS) answers.delete(answers.keys().next().value!);
          answers.set(cacheKey, text);
          return reply.type('application/json').send(text);
        }
        return reply.send(ok(data));
      },
    });
  }
}
