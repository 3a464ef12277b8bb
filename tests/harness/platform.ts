import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { loadConfig } from '@iot/infra/config.ts';
import { seedDemoTenant, startPlatform, type Platform, type SeedTenant } from '@iot/infra/platform.ts';
import type { App } from '@iot/infra/http/app.ts';
import { createTestDatabase, type TestDatabase } from './postgres.ts';
import type { Routes } from '@iot/contracts';
import { queryText, type RouteSpec } from '@iot/contracts/http/route.ts';
import { isRouteName, specOf, type Answer, type RouteArgs, type RouteName } from './api.ts';
import { freePort } from './free-port.ts';

export const ADMIN_PASSWORD = 'Sys#admin42';
/** The name the platform tests use for it. */
export const TEST_ADMIN_PASSWORD = ADMIN_PASSWORD;

/**
 * The whole platform in this process (real PostgreSQL, chDB, projections; chDB opens once per process, so one
 * platform per test file), on its own database, with every log line captured. Requests go through Fastify's
 * inject: the full pipeline of hooks, validation and handlers, without a socket.
 */
export async function startTestPlatform(env: Record<string, string> = {}, options: { staticDir?: string } = {}) {
  const db: TestDatabase = await createTestDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'dc-identity-'));
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  const logger = pino({ level: 'debug' }, sink);
  const platform: Platform = await startPlatform(
    loadConfig({
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      ADMIN_PASSWORD,
      LOG_LEVEL: 'debug',
      MQTT_PORT: String(await freePort()),
      ...env,
    }),
    {
      port: 0,
      staticDir: options.staticDir ?? null,
      logger,
    },
  );
  const app = platform.app as App;
  let address = 0;

  /** What a call by method and path takes. */
  interface CallOptions {
    token?: string;
    body?: unknown;
    query?: Record<string, string>;
    headers?: Record<string, string>;
    remoteAddress?: string;
  }
  /** Each call comes from its own address, so that the per-address login throttle stays out of the way unless asked for. */
  const send = async (method: string, url: string, options: CallOptions) => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.token) headers.authentication = options.token;
    const response = await app.inject({
      method: method as 'GET',
      url,
      query: options.query,
      headers,
      remoteAddress: options.remoteAddress ?? `10.1.${Math.floor(address / 250)}.${(address++ % 250) + 1}`,
      ...(options.body === undefined ? {} : Buffer.isBuffer(options.body) ? { body: options.body } : { payload: options.body as object }),
    });
    let json: { code: number; msg: string; data: any } | null;
    try {
      json = response.json();
    } catch {
      json = null;
    }
    return { status: response.statusCode, body: response.body, json, headers: response.headers, rawPayload: response.rawPayload };
  };
  type Sent = Awaited<ReturnType<typeof send>>;

  /** A route of the table by name, with the body and query its schemas take; or, for tests of the HTTP surface itself, a method and a path. */
  function call<N extends RouteName>(name: N, options?: RouteArgs<Routes[N]>): Promise<Sent & Answer<Routes[N]>>;
  function call(method: string, url: string, options?: CallOptions): Promise<Sent & Answer>;
  async function call(first: string, second?: string | RouteArgs<RouteSpec>, third?: CallOptions): Promise<Sent & Answer> {
    if (!isRouteName(first)) return send(first, second as string, third ?? {});
    const spec: RouteSpec = specOf(first);
    const options = (second ?? {}) as RouteArgs<RouteSpec>;
    return { ...(await send(spec.method, spec.path, { ...options, query: options.query && queryText(options.query) })), route: spec };
  }

  /** `call` with the body parsed when it is JSON. */
  function api<N extends RouteName>(name: N, options?: RouteArgs<Routes[N]>): Promise<{ status: number; body: any }>;
  function api(method: string, url: string, options?: CallOptions): Promise<{ status: number; body: any }>;
  async function api(first: string, second?: string | RouteArgs<RouteSpec>, third?: CallOptions) {
    const r = await (isRouteName(first) ? call(first, second as RouteArgs<Routes[typeof first]>) : call(first, second as string, third));
    return { status: r.status, body: r.json ?? (r.body as any) };
  }

  const http = {
    app,
    platform,
    logLines,
    call,
    async login(account: string, password: string, remoteAddress?: string): Promise<string> {
      const r = await call('auth.login', { body: { account, password, agreement: true }, remoteAddress });
      if (r.status !== 200) throw new Error(`login ${account} failed: ${r.body}`);
      return r.json!.data.token as string;
    },
    api,
    /** The test's own database, for what only the database shows (the notifier's outbox, the event table). */
    db,
    seedTenant: (tenant: SeedTenant) => seedDemoTenant(platform.context, tenant),
    async stop() {
      await platform.stop();
      await db.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return http;
}
export type TestPlatform = Awaited<ReturnType<typeof startTestPlatform>>;
