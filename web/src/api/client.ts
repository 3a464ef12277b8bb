import { channels, REQUEST_TIMEOUT_MS, routes, type Channels, type Envelope, type Page, type Routes } from '@iot/contracts';
import { queryText, type BodyIn, type QueryIn, type ResultOf, type RouteSpec } from '@iot/contracts/http/route.ts';
import i18n, { langOf } from '../i18n/index.ts';
import { session, STATION_KEY } from './session.ts';

export { STATION_KEY };
/** Where a development build keeps the tenant its `tenant` header names (set by hand in the browser's storage). */
export const DEV_TENANT_KEY = 'tenant';

/** The websocket address of a channel of the route table, with the current group (spec §6) narrowing group-scoped feeds. */
export function channelUrl(name: keyof Channels, params: Record<string, string> = {}): string {
  const station = localStorage.getItem(STATION_KEY);
  const query = new URLSearchParams({ ...params, ...(station ? { stationId: station } : {}) }).toString();
  return `${location.origin.replace(/^http/, 'ws')}${channels[name].path}${query ? `?${query}` : ''}`;
}

/** A failed call: `msg` is already in the user's language (from the server, or our own fallback). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** What the server said beyond the message (the faults of a refused file, ...). */
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type Query = Record<string, string | number | boolean | null | undefined>;

let onUnauthorized: () => void = () => {};
/** Set while the user logs out: the answers still in flight are 401s of a session we are ending on purpose. */
let loggingOut = false;
export function setLoggingOut(value: boolean): void {
  loggingOut = value;
}
/**
 * The app tells the client where to go on 401: the session expired or was revoked, back to login. A 403 (a
 * forbidden action) is an error like any other: its message is shown and the user stays where they are.
 */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

function headers(contentType: string | null, withStation = true): Record<string, string> {
  const out: Record<string, string> = { systemid: 'iot', lang: langOf(i18n.language) };
  const token = session.token();
  if (token) out.Authentication = token;
  // Spec §6: the current group narrows most requests to its subtree (the header's group switcher sets it).
  const station = withStation ? localStorage.getItem(STATION_KEY) : null;
  if (station) out.stationid = station;
  // Spec §7: development builds also send a `tenant` header (a server in APP_MODE=development lets the system
  // administrator act in that tenant); a production build never does.
  const devTenant = import.meta.env.DEV ? localStorage.getItem(DEV_TENANT_KEY) : null;
  if (devTenant) out.tenant = devTenant;
  const authTimestamp = localStorage.getItem('authtimestamp');
  if (authTimestamp) out.authtimestamp = authTimestamp;
  if (contentType) out['content-type'] = contentType;
  return out;
}

function queryString(query: Query | undefined, withTimestamp: boolean): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === '') continue;
    params.set(key, String(value));
  }
  // Spec §7: GET and DELETE carry a cache-busting timestamp.
  if (withTimestamp) params.set('timestamp', String(Date.now()));
  const text = params.toString();
  return text ? `?${text}` : '';
}

export interface CallOptions {
  /** Do not send the browser to login on 401 (the login call itself). */
  noRedirect?: boolean;
  /** Spec §6: "unless a call says otherwise" — leave the current group out (the switcher lists every group). */
  noStation?: boolean;
  /** No time limit: an upload of any size runs as long as it takes (its progress arrives on a channel). */
  noTimeout?: boolean;
}

async function call<T>(method: string, path: string, body: unknown, query: Query | undefined, options: CallOptions): Promise<T> {
  const controller = new AbortController();
  const timer = options.noTimeout ? undefined : setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
  // A file (the logo) travels as its own bytes with its own type; anything else as JSON.
  const isFile = typeof Blob !== 'undefined' && body instanceof Blob;
  const hasBody = body !== undefined && method !== 'GET' && method !== 'DELETE';
  let response: Response;
  try {
    response = await fetch(path + queryString(query, method === 'GET' || method === 'DELETE'), {
      method,
      headers: headers(
        !hasBody ? null : isFile ? (body as Blob).type || 'application/octet-stream' : 'application/json',
        !options.noStation,
      ),
      body: hasBody ? (isFile ? (body as Blob) : JSON.stringify(body)) : undefined,
      credentials: 'same-origin',
      signal: controller.signal,
    });
  } catch {
    throw new ApiError(0, 'NETWORK', i18n.t('error.network'));
  } finally {
    clearTimeout(timer);
  }
  let payload: Partial<Envelope<unknown>> & { data?: { error?: string; details?: unknown } } = {};
  try {
    payload = (await response.json()) as typeof payload;
  } catch {
    // Not JSON (a proxy's error page): fall back to our own message below.
  }
  if (response.status === 401 && !options.noRedirect) {
    const error = new ApiError(response.status, payload.data?.error ?? 'UNAUTHENTICATED', payload.msg ?? i18n.t('error.unauthenticated'));
    if (!loggingOut) onUnauthorized();
    throw error;
  }
  const ok = response.ok && (payload.code === 200 || payload.code === 0 || (payload.code as unknown) === '00000');
  if (!ok) {
    const code = payload.data?.error ?? (response.status === 404 ? 'NOT_FOUND' : 'HTTP_' + response.status);
    const msg = payload.msg && payload.code !== undefined ? payload.msg : i18n.t('error.requestFailed');
    throw new ApiError(response.status, code, msg, payload.data?.details);
  }
  return payload.data as T;
}

/** The message to show for anything a call threw: never a raw error. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return i18n.t('error.unknown');
}

/** The routes of the table, by name. */
export type RouteName = keyof Routes;

/** What a route takes: its body and query as its schemas accept them (a file route: the file), nothing it does not declare. */
export type CallArgs<R extends RouteSpec> = (R['consumes'] extends string
  ? { body: Blob }
  : R['body'] extends object
    ? { body: BodyIn<R> }
    : { body?: never }) &
  (R['query'] extends object ? { query?: QueryIn<R> } : { query?: never });

/**
 * Calls a route of the table by name (STYLE.md "One contract, two ends"): method and path come from the
 * table, the arguments and the answer are typed by its schemas, so the browser cannot call a path that
 * does not exist nor send a field the server refuses.
 */
export function callRoute<N extends RouteName>(
  name: N,
  args: CallArgs<Routes[N]>,
  options: CallOptions = {},
): Promise<ResultOf<Routes[N]>> {
  const { body, query } = args as { body?: unknown; query?: Query };
  return send<ResultOf<Routes[N]>>(routes[name], body, query, options);
}

/** The one door of every call: method and path from the route's spec, a body only where the method carries one. */
function send<T>(spec: RouteSpec, body: unknown, query: Query | undefined, options: CallOptions): Promise<T> {
  return call<T>(spec.method, spec.path, spec.method === 'GET' || spec.method === 'DELETE' ? undefined : (body ?? {}), query, options);
}

/** The routes that take a JSON body: what a form sends. */
export type BodyRoute = { [N in RouteName]: Routes[N] extends { body: object } ? N : never }[RouteName];

/** The GET routes answering a page of `T` (or, for a tree, an array of roots): what a list screen reads. */
export type ListRoute<T> = {
  [N in RouteName]: Routes[N]['method'] extends 'GET' ? (ResultOf<Routes[N]> extends Page<T> | readonly T[] ? N : never) : never;
}[RouteName];

/** The query a list screen builds from its filters, paging and sorting: text the route's schema checks at the server. */
export type ListQuery = Record<string, string | number | undefined>;

/** Reads a list route (see `ListRoute`) with the query a list screen builds. */
export function readList<T>(name: ListRoute<T>, query: ListQuery): Promise<Page<T> | readonly T[]> {
  return send<Page<T> | readonly T[]>(routes[name], undefined, query, {});
}

/** What a bulk route answers: how many records went and, per record, why one did not. */
export type BulkAnswer = { ok: number; failed: number; results: { ok: boolean; msg: string | null }[] };

/** The DELETE routes taking a list of `ids` and answering per record: what a list's delete button calls. */
export type BulkDeleteRoute = {
  [N in RouteName]: Routes[N]['method'] extends 'DELETE'
    ? QueryIn<Routes[N]> extends { ids: unknown }
      ? ResultOf<Routes[N]> extends BulkAnswer
        ? N
        : never
      : never
    : never;
}[RouteName];

/** Deletes records by id through a bulk route (see `BulkDeleteRoute`). */
export function deleteByIds(name: BulkDeleteRoute, ids: readonly string[]): Promise<BulkAnswer> {
  return send<BulkAnswer>(routes[name], undefined, { ids: ids.join(',') }, {});
}

/** The DELETE routes taking one record's `id`. */
export type DeleteRoute = {
  [N in RouteName]: Routes[N]['method'] extends 'DELETE' ? (QueryIn<Routes[N]> extends { id: unknown } ? N : never) : never;
}[RouteName];

/** Deletes one record by id through its route (see `DeleteRoute`). */
export function deleteById(name: DeleteRoute, id: string): Promise<unknown> {
  return send<unknown>(routes[name], undefined, { id }, {});
}

/** The routes whose answer is a file (a CSV export, a JSON model, an image): downloaded, not read. */
export type FileRoute = { [N in RouteName]: Routes[N] extends { produces: string } ? N : never }[RouteName];
/** What a file route takes as its query (nothing, for one that declares none). */
export type FileQuery<N extends FileRoute> = object & (QueryIn<Routes[N]> extends object ? QueryIn<Routes[N]> : Record<never, never>);

/** The address of a file route's answer with its query (the cache-busting timestamp of spec §7 included). */
export function fileUrl<N extends FileRoute>(name: N, query: FileQuery<N>): string {
  return routes[name].path + queryString(queryText(Object.fromEntries(Object.entries(query))), true);
}
