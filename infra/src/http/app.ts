import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { limits, PRODUCT_VERSION, TOKEN_COOKIE } from '@iot/contracts';
import type { ErasedHandler, Ports } from '@iot/contracts/http/handler.ts';
import type { RouteTable } from '@iot/contracts/http/route.ts';
import { registerAccessControl, resolvePrincipal } from './auth.ts';
import { feedActivity, registerChannels, type ChannelHub } from './channels.ts';
import { createDeviceFastPath } from './device-fast-path.ts';
import { clientErrorHandler, deviceHeaders, registerDeviceHardening, registerHardening } from './hardening.ts';
import type { ChannelSpec } from '@iot/contracts/http/channel.ts';
import type { Lookups } from '@iot/contracts/ports/lookups.ts';
import type { Principal } from './principal.ts';
import type { App, AppContext } from './context.ts';
import { errorHandler, langOf, replyError } from './envelope.ts';
import { registerRouteTable, type ReadModelWatch } from './route-table.ts';
import type { TusOptions } from './tus.ts';

export type { App };
/** A module's routes: a function of the app and the context, registered by the composition root. */
export type RoutesPlugin = (app: App, context: AppContext) => void | Promise<void>;

const BODY_LIMIT = 1024 * 1024;

/** Spreadsheet uploads (CSV, XLSX) a streamed route reads as it arrives. */
const FILE_TYPES = [
  'text/csv',
  'application/csv',
  'application/vnd.ms-excel',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
];

/** The HTTP server: envelope, validation, auth, OpenAPI at /docs, /health and /metrics; modules add their routes. */
export interface RouteTableBinding {
  routes: RouteTable;
  /** Every route's handler by the route's name (the composition root's `Handlers<typeof routes>` checks they are all there). */
  handlers: Readonly<Record<string, ErasedHandler>>;
  ports: Ports;
  watch: ReadModelWatch;
  /**
   * Routes a device calls with its own credentials (public in the table, no session): served in a context of their
   * own, without the API's session, cookie, websocket and hardening hooks; validation, envelope and table unchanged.
   */
  deviceRoutes?: readonly string[];
}

export interface CreateAppOptions {
  staticDir?: string;
  table?: RouteTableBinding;
  resolvePrincipal?: (token: string) => Promise<Principal | null>;
  channels?: { specs: Record<string, ChannelSpec>; lookups: Lookups; onHub?: (hub: ChannelHub) => void };
  trustedProxies?: string[];
  cookieDomain?: string;
  /** Where resumable uploads wait for their last byte (routes that consume `tus`). */
  tus?: TusOptions;
}

export async function createApp(context: AppContext, modules: RoutesPlugin[], options: CreateAppOptions = {}): Promise<App> {
  /** The device routes' fast path, set once they are registered: a request it takes never reaches Fastify. */
  let devicePath: ((req: IncomingMessage, res: ServerResponse) => boolean) | null = null;
  const app = Fastify({
    // Fastify's own server, with the device routes' fast path in front of its routing (issue 23).
    serverFactory: (handler, settings) => {
      const server = createServer((req, res) => {
        if (!devicePath?.(req, res)) handler(req, res);
      });
      server.keepAliveTimeout = Number(settings.keepAliveTimeout);
      server.requestTimeout = Number(settings.requestTimeout);
      server.setTimeout(Number(settings.connectionTimeout));
      return server;
    },
    loggerInstance: context.logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT,
    genReqId: (request) => (typeof request.headers['x-request-id'] === 'string' ? request.headers['x-request-id'] : randomUUID()),
    requestIdHeader: 'x-request-id',
    // X-Forwarded-* (and so HTTPS, for the cookie's Secure flag) only from the proxies the operator names.
    trustProxy: options.trustedProxies?.length ? options.trustedProxies : false,
    clientErrorHandler,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler);
  app.decorateRequest('lang', 'zh');
  // Every error, in any context, leaves in the envelope in the caller's language.
  app.addHook('onRequest', async (request, reply) => {
    request.lang = langOf(request.headers);
    reply.header('x-request-id', request.id);
  });
  // Routes that declare `consumes` (the logo) take the raw file as a browser's fetch(file) posts it: its bytes reach
  // the handler, which judges them; room above the 2 MB limit so a slightly larger file gets LOGO_TOO_LARGE.
  // Routes that declare `consumes: 'file'` (a device import) take the request stream itself, never held whole in memory.
  for (const type of FILE_TYPES) app.addContentTypeParser(type, (_request, payload, done) => done(null, payload));
  // The bytes of a resumable upload (tus PATCH) are read by the tus server itself, as they arrive.
  app.addContentTypeParser('application/offset+octet-stream', (_request, payload, done) => done(null, payload));
  for (const type of [/^image\/.*/, 'application/octet-stream'])
    app.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: limits.logo.maxBytes * 4 }, (_request, body, done) => done(null, body));
  await app.register(swagger, {
    openapi: {
      info: { title: 'Device cloud API', version: PRODUCT_VERSION },
      components: {
        securitySchemes: {
          token: { type: 'apiKey', in: 'header', name: 'Authentication' },
          cookie: { type: 'apiKey', in: 'cookie', name: 'token' },
        },
      },
      security: [{ token: [] }, { cookie: [] }],
    },
    transform: jsonSchemaTransform,
    // Recursive schemas (the group and menu trees) become components that their $refs point to.
    transformObject: jsonSchemaTransformObject,
  });
  // Device credential routes (the HTTP ingest): a context of their own, without the sessions, cookies, websocket
  // and hardening hooks of the API that each of their requests would otherwise run (issue 23).
  const deviceRoutes = options.table?.deviceRoutes ?? [];
  // The API: sessions (cookie or header), access control, hardening, channels, the route table, the web app.
  await app.register(async (api) => {
    await registerApi(api, context, modules, options, deviceRoutes);
  });
  if (options.table && deviceRoutes.length > 0) {
    const { routes, handlers, ports, watch } = options.table;
    const table = Object.fromEntries(deviceRoutes.map((name) => [name, routes[name]!])) as RouteTable;
    await app.register(async (devices) => {
      registerDeviceHardening(devices, context.config.VIDEO_STREAM_SOURCES);
      devices.addHook('onRoute', (route) => {
        if (route.config?.permission !== 'public')
          throw new Error(`device route ${route.method} ${route.url} must take device credentials`);
      });
      registerRouteTable(devices, table, handlers, {
        ports,
        watch,
        // No session: a device route sets no cookie.
        cookie: () => ({ set: () => undefined, clear: () => undefined }),
      });
    });
    // The same routes on the bare request: what it does not judge itself it replays to the routes above.
    devicePath = createDeviceFastPath({
      routes: table,
      handlers,
      ports,
      bodyLimit: BODY_LIMIT,
      headers: deviceHeaders(context.config.VIDEO_STREAM_SOURCES),
      replay: (request) => app.inject(request),
      logger: context.logger as FastifyBaseLogger,
    });
  }
  return app;
}

/** The API's context: what every route of the table but the device routes runs through. */
async function registerApi(
  app: App,
  context: AppContext,
  modules: RoutesPlugin[],
  options: CreateAppOptions,
  deviceRoutes: readonly string[],
): Promise<void> {
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    // A missing file (an asset of an older build) is a 404; any other page is the client's route.
    const isFile = /\.[a-z0-9]+$/i.test(path) || path.startsWith('/assets/');
    if (path.startsWith('/api/') || request.method !== 'GET' || !options.staticDir || isFile)
      return replyError(reply, request, 'NOT_FOUND');
    // The web app routes on the client: unknown GETs outside /api get its index.
    return reply.sendFile('index.html');
  });
  await app.register(cookie);
  await app.register(swaggerUi, { routePrefix: '/docs' });
  registerAccessControl(
    app,
    options.resolvePrincipal ?? ((token) => resolvePrincipal(context.db, token)),
    context.config.APP_MODE === 'development' ? context.db : null,
  );
  // After access control: a caller without the permission gets 403 whatever the body.
  registerHardening(app, context.config.VIDEO_STREAM_SOURCES);
  app.get('/health', { config: { permission: 'public' }, schema: { hide: true } }, async (_request, reply) => {
    const engines = await Promise.all(
      context.engines.map(async (engine) => {
        const state = await engine.check().catch((error: Error) => ({ ok: false, detail: error.message }));
        return { name: engine.name, ...state };
      }),
    );
    const healthy = engines.every((e) => e.ok);
    return reply
      .status(healthy ? 200 : 503)
      .send({ code: healthy ? 200 : 503, msg: healthy ? 'ok' : 'degraded', data: { version: PRODUCT_VERSION, engines } });
  });
  app.get('/metrics', { config: { permission: 'public' }, schema: { hide: true } }, async (_request, reply) => {
    return reply.header('content-type', context.metrics.contentType).send(await context.metrics.metrics());
  });

  if (options.channels) {
    const hub = await registerChannels(app, options.channels.specs, options.channels.lookups);
    options.channels.onHub?.(hub);
    const feed = await feedActivity(context.store, hub);
    app.addHook('onClose', () => feed.stop());
  }
  for (const module of modules) await module(app, context);
  if (options.table) {
    const { routes, handlers, ports, watch } = options.table;
    const apiRoutes = Object.fromEntries(Object.entries(routes).filter(([name]) => !deviceRoutes.includes(name))) as RouteTable;
    registerRouteTable(app, apiRoutes, handlers, {
      ports,
      watch,
      ...(options.tus ? { tus: options.tus } : {}),
      cookie: (request, reply) => ({
        set: (token) =>
          reply.setCookie(TOKEN_COOKIE, token, {
            path: '/',
            httpOnly: true,
            sameSite: 'lax',
            secure: request.protocol === 'https',
            ...(options.cookieDomain ? { domain: options.cookieDomain } : {}),
          }),
        clear: () => reply.clearCookie(TOKEN_COOKIE, { path: '/', ...(options.cookieDomain ? { domain: options.cookieDomain } : {}) }),
      }),
    });
  }

  if (options.staticDir) {
    const { default: fastifyStatic } = await import('@fastify/static');
    // Files are looked up on each request, so a rebuilt web app is served without a restart.
    await app.register(fastifyStatic, { root: options.staticDir, wildcard: true, index: false });
    app.get('/', { config: { permission: 'public' }, schema: { hide: true } }, (_request, reply) => reply.sendFile('index.html'));
  }
}
