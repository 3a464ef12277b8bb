import type { Readable } from 'node:stream';
import { Server, type DataStore } from '@tus/server';
import type { Upload } from '@tus/utils';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodType } from 'zod';
import { DomainError, errorCatalogue, messageOf, type ErrorCode } from '@iot/contracts';
import type { ErasedHandler, RequestContext } from '@iot/contracts/http/handler.ts';
import type { RouteSpec, TusUploadFinished } from '@iot/contracts/http/route.ts';
import type { FileStore } from '@iot/contracts/ports/files.ts';
import type { App } from './context.ts';

/** Where resumable uploads lie until their last byte: @tus/file-store under DATA_DIR, or @tus/s3-store at scale. */
export interface TusOptions {
  /** A tus data store that can also stream back an upload's bytes (both the file and the S3 store can). */
  datastore: DataStore & { read(id: string): Readable | Promise<Readable> };
  /** The quota's reservations of uploads in progress (command/src/file/quota.ts). */
  reservations: UploadReservations;
}

/** An upload's bytes promised at creation against the tenant's quota, until it is recorded, terminated or abandoned. */
export interface UploadReservations {
  /** Refuses with a DomainError (FILE_QUOTA_EXCEEDED) when the tenant's stored and reserved bytes leave no room. */
  reserve(r: { tenantId: string; uploadId: string; bytes: number; quotaBytes: number }): Promise<void>;
  touch(uploadId: string): Promise<void>;
  release(uploadId: string): Promise<void>;
}

/** What a request the tus server handles was let in as: its caller and the route's context. */
interface Admitted {
  ctx: RequestContext;
}

const MB = 1024 * 1024;
const mb = (bytes: number) => (bytes / MB).toFixed(2);

/** A refusal as the tus server sends it: the platform's envelope in the caller's language. */
function refusal(code: ErrorCode, lang: 'zh' | 'en', details?: Record<string, unknown>) {
  const status = errorCatalogue[code].status;
  return {
    status_code: status,
    body: JSON.stringify({ code: status, msg: messageOf(code, lang, details), data: { error: code, ...details } }),
  };
}

/** The tus `Upload-Metadata` values as the route's body schema reads them (empty values are absent). */
const fieldsOf = (metadata: Upload['metadata']) =>
  Object.fromEntries(Object.entries(metadata ?? {}).filter(([key, v]) => !key.startsWith('platform.') && v !== null && v !== ''));

/**
 * Mounts a route that `consumes: 'tus'` (the tus 1.0.0 protocol through @tus/server): POST at its path creates an
 * upload, HEAD, PATCH and DELETE at `<path>/<uploadId>` resume, continue and end it. Every request passes the route
 * table's access control (the route's permission) first; an upload is seen only by the tenant and user that made it
 * (404 for anyone else). Metadata and limits are checked at creation, before a byte is stored; on the last byte the
 * whole is copied into the FileStore under `<tenantId>/<uploadId>` (its SHA-256 computed as it streams) and the
 * route's handler records it.
 */
export function mountTusRoute(
  app: App,
  name: string,
  spec: RouteSpec,
  handler: ErasedHandler,
  tus: TusOptions,
  contextOf: (request: FastifyRequest, reply: FastifyReply) => RequestContext,
  recorded: (ctx: RequestContext, reads: RouteSpec['reads']) => Promise<Record<string, string>>,
  /** The error answers the OpenAPI document shows for the upload route, by status. */
  errors: Record<number, ZodType>,
): void {
  const admitted = new WeakMap<object, Admitted>();
  const who = (req: { runtime?: { node?: { req: object } } }): Admitted => {
    const node = req.runtime?.node?.req;
    const found = node && admitted.get(node);
    if (!found) throw refusal('UNAUTHENTICATED', 'zh');
    return found;
  };
  const filesOf = (ctx: RequestContext): FileStore => {
    if (!ctx.ports.files) throw refusal('INTERNAL', ctx.lang);
    return ctx.ports.files;
  };
  const server = new Server({
    path: spec.path,
    datastore: tus.datastore,
    relativeLocation: true,
    respectForwardedHeaders: false,
    disableTerminationForFinishedUploads: true,
    async onIncomingRequest(req, uploadId) {
      if (req.method === 'POST') return;
      const { ctx } = who(req);
      const upload = await tus.datastore.getUpload(uploadId).catch(() => null);
      // Another tenant's or another user's upload is not there for this caller.
      if (
        !upload ||
        upload.metadata?.['platform.tenantId'] !== ctx.caller?.tenantId ||
        upload.metadata?.['platform.userId'] !== ctx.caller?.id
      )
        throw refusal('NOT_FOUND', ctx.lang);
      if (req.method === 'PATCH') await tus.reservations.touch(uploadId);
      // A terminated upload gives its reservation back (tus DELETE).
      if (req.method === 'DELETE') await tus.reservations.release(uploadId);
    },
    async onUploadCreate(req, upload) {
      const { ctx } = who(req);
      const caller = ctx.caller!;
      const parsed = spec.body?.safeParse(fieldsOf(upload.metadata));
      if (parsed && !parsed.success)
        throw refusal('VALIDATION', ctx.lang, {
          fields: parsed.error.issues.map((issue) => ({ field: ['metadata', ...issue.path].join('.'), message: issue.message })),
        });
      const limits = ctx.ports.fileLimits ?? { quotaBytes: 0, maxFileBytes: 0 };
      if (upload.size === undefined) throw refusal('VALIDATION', ctx.lang, { fields: [{ field: 'Upload-Length', message: 'required' }] });
      if (upload.size === 0) throw refusal('FILE_EMPTY', ctx.lang);
      if (upload.size > limits.maxFileBytes) throw refusal('FILE_UPLOAD_TOO_LARGE', ctx.lang, { maxMb: mb(limits.maxFileBytes) });
      try {
        await tus.reservations.reserve({
          tenantId: caller.tenantId,
          uploadId: upload.id,
          bytes: upload.size,
          quotaBytes: limits.quotaBytes,
        });
      } catch (error) {
        if (error instanceof DomainError) throw refusal(error.code, ctx.lang, error.details as Record<string, unknown>);
        throw error;
      }
      return { metadata: { ...upload.metadata, 'platform.tenantId': caller.tenantId, 'platform.userId': caller.id } };
    },
    // The protocol's own refusals (a missing Tus-Resumable, a wrong offset, a held lock) leave in the envelope too.
    onResponseError(req, error) {
      if ('status_code' in error && error.body.startsWith('{')) return undefined;
      const status = 'status_code' in error ? error.status_code : 500;
      let lang: 'zh' | 'en' = 'zh';
      try {
        lang = who(req).ctx.lang;
      } catch {
        // not admitted: the default language
      }
      const code: ErrorCode = status === 404 ? 'NOT_FOUND' : status >= 500 ? 'INTERNAL' : 'VALIDATION';
      const detail = status < 500 && 'body' in error ? { detail: error.body.trim() } : {};
      return { status_code: status, body: JSON.stringify({ code: status, msg: messageOf(code, lang), data: { error: code, ...detail } }) };
    },
    async onUploadFinish(req, upload) {
      const { ctx } = who(req);
      const caller = ctx.caller!;
      const fields = spec.body ? spec.body.parse(fieldsOf(upload.metadata)) : {};
      const storageKey = `${caller.tenantId}/${upload.id}`;
      const stored = await filesOf(ctx).put(storageKey, await tus.datastore.read(upload.id));
      const body: TusUploadFinished<unknown> = { fields, uploadId: upload.id, storageKey, ...stored };
      try {
        await handler({ body, query: {} }, ctx);
      } catch (error) {
        await filesOf(ctx).remove(storageKey);
        if (error instanceof DomainError) throw refusal(error.code, ctx.lang);
        throw error;
      }
      await tus.datastore.remove(upload.id).catch(() => {});
      // Released once the files read model counts the file (the answer waits for it), so its bytes are never uncounted.
      const position = await recorded(ctx, spec.reads);
      await tus.reservations.release(upload.id);
      return { headers: { 'Upload-Sha256': stored.sha256, ...position } };
    },
  });

  const take = async (request: FastifyRequest, reply: FastifyReply) => {
    admitted.set(request.raw, { ctx: contextOf(request, reply) });
    reply.hijack();
    reply.raw.setHeader('x-content-type-options', 'nosniff');
    reply.raw.setHeader('cache-control', 'no-store');
    await server.handle(request.raw, reply.raw);
  };
  const config = { permission: spec.permission };
  app.route({
    method: 'POST',
    url: spec.path,
    config,
    schema: { operationId: name, tags: [spec.tag], summary: spec.summary, response: errors },
    handler: take,
  });
  app.route({ method: ['HEAD', 'PATCH', 'DELETE'], url: `${spec.path}/:uploadId`, config, schema: { hide: true }, handler: take });
}
