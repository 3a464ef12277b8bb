import type { z } from 'zod';
import type { ErrorCode } from '../errors.ts';
import type { RoutePermission } from './principal.ts';
import type { ReadModel } from './read-models.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * One route, declared once (STYLE.md "One contract, two ends"): the Fastify adapter in infra/ registers
 * it (validation, permission, OpenAPI), the web client is typed by it, and the security walks iterate it.
 */
export interface RouteSpec {
  method: HttpMethod;
  path: string;
  permission: RoutePermission;
  /** OpenAPI tag: the capability it belongs to. */
  tag: string;
  summary: string;
  body?: z.ZodType;
  query?: z.ZodType;
  /** The schema of `data` in the success envelope. */
  response: z.ZodType;
  /** The read models the answer reads: a write waits for them to reach its events, and a read carrying a position too. */
  reads: readonly ReadModel[];
  /** Error codes the route may answer beyond the ones every route may (validation, 401, 403, 500): documented in OpenAPI. */
  errors?: readonly ErrorCode[];
  /**
   * A read whose answer depends only on its query, the caller's tenant and station (`tenant`), or also on
   * the caller (`caller`): kept in memory until one of its read models moves, so that a screen many
   * operators poll costs one query.
   */
  cache?: 'tenant' | 'caller';
  /**
   * A body that is not JSON: its bytes arrive as a Uint8Array (the logo, `image/png`), or as a stream never
   * held whole in memory (`file`: an import of any size up to its handler's limit), see `FileUpload`; or sent in
   * resumable pieces over the tus protocol (`tus`): the adapter stores them, and calls the handler once with the
   * `body` schema's metadata and the stored whole, see `TusUploadFinished`.
   */
  consumes?: 'image/png' | 'file' | 'tus';
  /** An answer that is not the JSON envelope (a CSV export, an image, a JSON file to download). */
  produces?: 'text/csv' | 'image/png' | 'application/json' | 'application/octet-stream' | 'application/pdf';
}

/** Declares a route, keeping its literal types for the handler and the client. */
export const route = <const R extends RouteSpec>(spec: R): R => spec;

export type RouteTable = Record<string, RouteSpec>;

/** A streamed upload: its bytes as they arrive, with what the request said of them. */
export interface FileUpload {
  stream: AsyncIterable<Uint8Array>;
  contentType: string;
  /** The Content-Length, when the client sent one. */
  length: number | null;
}

/** A resumable upload whose every byte is stored: its metadata as the route's body schema output it, and the whole. */
export interface TusUploadFinished<F> {
  fields: F;
  /** The id the upload was created under (tus upload id), unique: the id of what it records. */
  uploadId: string;
  /** Where the whole lies in the FileStore. */
  storageKey: string;
  size: number;
  /** SHA-256 of the whole, hex, computed while it was stored. */
  sha256: string;
}

export type BodyOf<R extends RouteSpec> = R['consumes'] extends 'file'
  ? FileUpload
  : R['consumes'] extends 'tus'
    ? TusUploadFinished<R['body'] extends z.ZodType ? z.output<R['body']> : never>
    : R['body'] extends z.ZodType
      ? z.output<R['body']>
      : undefined;
export type QueryOf<R extends RouteSpec> = R['query'] extends z.ZodType ? z.output<R['query']> : undefined;
/** What the handler returns as `data`. */
export type DataOf<R extends RouteSpec> = z.input<R['response']>;
/** What the client receives as `data`. */
export type ResultOf<R extends RouteSpec> = z.output<R['response']>;
/** What the client sends: the schemas' input types. */
export type BodyIn<R extends RouteSpec> = R['body'] extends z.ZodType ? z.input<R['body']> : undefined;
export type QueryIn<R extends RouteSpec> = R['query'] extends z.ZodType ? z.input<R['query']> : undefined;

/** An answer that is not the JSON envelope: a file the browser downloads or shows. */
export interface RawAnswer {
  readonly raw: true;
  contentType: string;
  /** A file whole, or streamed as it is made (an export of a million rows never sits in memory). */
  body: string | Uint8Array | AsyncIterable<string | Uint8Array>;
  /** Offered as a download under this name. */
  filename?: string;
  /** Further response headers (caching of the logo, ...). */
  headers?: Readonly<Record<string, string>>;
  /** The HTTP status when not 200 (206 for a byte range). */
  status?: number;
}
export const rawAnswer = (
  contentType: string,
  body: string | Uint8Array | AsyncIterable<string | Uint8Array>,
  filename?: string,
  headers?: Readonly<Record<string, string>>,
): RawAnswer => ({
  raw: true,
  contentType,
  body,
  ...(filename ? { filename } : {}),
  ...(headers ? { headers } : {}),
});
export const isRawAnswer = (value: unknown): value is RawAnswer =>
  typeof value === 'object' && value !== null && (value as { raw?: unknown }).raw === true && 'contentType' in value;

/** Fills `:name` segments of a route's path. */
export function pathOf(spec: Pick<RouteSpec, 'path'>, params: Record<string, string> = {}): string {
  return spec.path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

/** A query's values as a URL carries them: absent and null values left out, lists joined by commas, instants in ISO 8601. */
export function queryText(query: Readonly<Record<string, unknown>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    out[key] = Array.isArray(value) ? value.join(',') : value instanceof Date ? value.toISOString() : String(value);
  }
  return out;
}

/** The URL of a route with its query: what a client of the table requests. */
export function urlOf(spec: Pick<RouteSpec, 'path'>, query?: Readonly<Record<string, unknown>>): string {
  const text = new URLSearchParams(queryText(query)).toString();
  return text ? `${pathOf(spec)}?${text}` : pathOf(spec);
}
