import type { Forwarding } from '../ports/forward.ts';
import type { EventStore } from '../ports/event-store.ts';
import type { Notifier } from '../ports/notifier.ts';
import type { SqlPool } from '../ports/sql.ts';
import type { Dispatch } from '../ports/dispatch.ts';
import type { Lookups } from '../ports/lookups.ts';
import type { LiveFeed } from '../ports/live.ts';
import type { DeviceIntakePort } from '../ports/intake.ts';
import type { DeviceLinkPort } from '../ports/device-link.ts';
import type { BrokerAdminPort } from '../ports/broker-admin.ts';
import type { TimeSeriesStore } from '../ports/timeseries.ts';
import type { OutboundHttp } from '../ports/outbound-http.ts';
import type { FileLimits } from '../file/model.ts';
import type { FileStore, OtaFileLookup } from '../ports/files.ts';
import type { DownloadLinks } from '../ports/download-links.ts';
import type { Principal } from './principal.ts';
import type { NotifySettings } from '../alarm/model.ts';
import type { BodyOf, DataOf, QueryOf, RawAnswer, RouteSpec, RouteTable } from './route.ts';

/** The ports a handler works with: never an engine's own client (ARCHITECTURE.md "Ports and adapters"). */
export interface Ports {
  store: EventStore;
  /** The read models' database (and the command side's claims, credentials and sessions). */
  db: SqlPool;
  notifier: Notifier;
  dispatch: Dispatch;
  lookups: Lookups;
  /** The websocket channels: progress of long work, live data. */
  live: LiveFeed;
  /** The time-series store (null in a process without it). */
  timeseries: TimeSeriesStore | null;
  /** The telemetry intake (null in a process that does not ingest). */
  intake: DeviceIntakePort | null;
  /** The downlink to devices (null in a process without a broker). */
  link: DeviceLinkPort | null;
  /** The guard of every URL a tenant sets: the API's save-time check (a process without it refuses to save one). */
  outbound?: OutboundHttp;
  /** How notifications are configured in this process (read-only; credentials never included). */
  notifySettings?: NotifySettings;
  /** The MQTT forwarding adapter and the platform's own ports (a process without it cannot test or save an MQTT target). */
  forwarding?: Forwarding;
  /** Where uploaded files' bytes live (a process without it serves no file). */
  files?: FileStore;
  /** The operator's limits on uploads: per tenant and per file. */
  fileLimits?: FileLimits;
  /** Signed links a device downloads a rollout's file at over HTTP (a process without it offers MQTT chunks only). */
  downloadLinks?: DownloadLinks;
  /** The file a rollout sends a device, kept per device and task (without it, the read model is asked each time). */
  otaFiles?: OtaFileLookup;
  /** The MQTT broker's clients and rates, and cutting a session (a process without a broker has none). */
  brokerAdmin?: BrokerAdminPort;
}

/** The `token` cookie, set and cleared by the adapter (HttpOnly, SameSite, Secure over HTTPS, configured domain). */
export interface SessionCookie {
  set(token: string): void;
  clear(): void;
}

/** Everything a handler knows of the request it answers, transport left out. */
export interface RequestContext {
  /** The logged-in caller; null only on public routes. */
  caller: Principal | null;
  lang: 'zh' | 'en';
  ip: string;
  requestId: string;
  /** A retried request with the same key applies once. */
  idempotencyKey?: string;
  /** The current group (spec §6 `stationId`). */
  stationId: string | null;
  /** The request's HTTP Range header, when it sent one (a download answers the range). */
  range?: string;
  cookie: SessionCookie;
  ports: Ports;
  /** Called with the position of each append the request made: the answer waits for the route's read models to reach it. */
  wrote(position: string): void;
}

/** One plain function per route: `(input, ctx) -> data`. */
export type HandlerFn<B, Q, D> = (input: { body: B; query: Q }, ctx: RequestContext) => Promise<D | RawAnswer>;
export type Handler<R extends RouteSpec> = HandlerFn<BodyOf<R>, QueryOf<R>, DataOf<R>>;

/**
 * A handler as the HTTP adapter holds it, its route's types erased: the adapter has validated body and query
 * against that route's own schemas before the call. Written as a method so that its parameters compare
 * bivariantly, which makes every `Handler<R>` one without a cast.
 */
export type ErasedHandler = { handle(input: { body: unknown; query: unknown }, ctx: RequestContext): Promise<unknown> }['handle'];

/** A handler for every route of a table, checked by the compiler. */
export type Handlers<T extends RouteTable> = { [K in keyof T]: Handler<T[K]> };

/** The caller of a route that declared a permission: present by construction. */
export function callerOf(ctx: Pick<RequestContext, 'caller'>): Principal {
  if (!ctx.caller) throw new Error('route reached without a caller: check its permission declaration');
  return ctx.caller;
}
