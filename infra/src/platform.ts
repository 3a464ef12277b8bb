import { existsSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { SYSTEM_TENANT } from '@iot/contracts';
import { handleCommand } from '@iot/command/handler.ts';
import { userDecider, userStream } from '@iot/command/user/decide.ts';
import { credentialsSchema, setPassword } from '@iot/command/auth/credentials.ts';
import { claimUsername, usernameClaimsSchema } from '@iot/command/user/usernames.ts';
import { authRoutes } from '@iot/command/auth/routes.ts';
import { tenantRoutes } from '@iot/command/tenant/routes.ts';
import { userRoutes } from '@iot/command/user/routes.ts';
import { groupRoutes } from '@iot/command/group/routes.ts';
import { roleRoutes } from '@iot/command/role/routes.ts';
import { menuRoutes } from '@iot/command/menu/routes.ts';
import { appRoutes } from '@iot/command/app/routes.ts';
import { dictRoutes } from '@iot/command/dict/routes.ts';
import { settingsRoutes } from '@iot/command/settings/routes.ts';
import { seedBuiltinMenus } from '@iot/command/menu/builtin.ts';
import { provisionAllTenants, provisionTenant } from '@iot/command/role/builtin.ts';
import { tenantDecider, tenantStream } from '@iot/command/tenant/decide.ts';
import { userQueryRoutes } from '@iot/query/identity/users.ts';
import { groupQueryRoutes } from '@iot/query/identity/groups.ts';
import { roleQueryRoutes } from '@iot/query/identity/roles.ts';
import { menuQueryRoutes } from '@iot/query/identity/menus.ts';
import { appQueryRoutes } from '@iot/query/identity/apps.ts';
import { dictQueryRoutes } from '@iot/query/identity/dicts.ts';
import { settingsQueryRoutes } from '@iot/query/identity/settings.ts';
import { oplogRoutes } from '@iot/query/oplog/routes.ts';
import { createProjectionRunner, projections, type ProjectionRunner } from '@iot/projections/index.ts';
import { createApp, type App, type RoutesPlugin } from '@iot/query/server/app.ts';
import type { AppContext, EngineHealth } from '@iot/query/server/context.ts';
import { ConfigError, type Config, type Role } from './config.ts';
import { createPostgresEventStore } from './event-store/postgres.ts';
import type { EventStore } from './event-store/port.ts';
import { createLogger } from './logger.ts';
import { createMetrics } from './metrics.ts';
import { createNotifier } from './notify/outbox.ts';
import { startEmbeddedPostgres } from './postgres/embedded.ts';
import { createSqlPool, type SqlPool } from './postgres/sql.ts';
import { createTimeSeriesStore, type TimeSeriesStore } from './timeseries/index.ts';
import { createInProcessBus } from './bus/in-process.ts';
import { createKafkaBus, kafkaBrokersFromEnv } from './bus/kafka.ts';
import type { Bus } from './bus/port.ts';
import { connectExternalMqtt } from './mqtt/client.ts';
import { startEmbeddedMqtt } from './mqtt/embedded.ts';
import type { MqttPort } from './mqtt/port.ts';

export const ADMIN_USER_ID = 'admin';

/** Every module's HTTP routes, in registration order. */
export const routeModules: RoutesPlugin[] = [
  authRoutes,
  tenantRoutes,
  userRoutes,
  userQueryRoutes,
  groupRoutes,
  groupQueryRoutes,
  roleRoutes,
  roleQueryRoutes,
  menuRoutes,
  menuQueryRoutes,
  appRoutes,
  appQueryRoutes,
  dictRoutes,
  dictQueryRoutes,
  settingsRoutes,
  settingsQueryRoutes,
  oplogRoutes,
];

export interface Platform {
  url: string | null;
  app: App | null;
  context: AppContext;
  runner: ProjectionRunner;
  timeseries: TimeSeriesStore | null;
  bus: Bus | null;
  mqtt: MqttPort | null;
  /** The system administrator's password when this start generated it (shown once). */
  generatedAdminPassword: string | null;
  stop(): Promise<void>;
}

export interface StartOptions {
  role?: Role;
  logger?: Logger;
  /** Serve the built web app from this folder (default web/dist when present). */
  staticDir?: string | null;
  /** Listen on this port instead of config.PORT (0 = any free port). */
  port?: number;
  /** Embedded MQTT broker port instead of config.MQTT_PORT (0 = any free port). */
  mqttPort?: number;
  seedDemo?: boolean;
}

/** Starts the platform's engines and roles in this process and returns how to stop them in order. */
export async function startPlatform(config: Config, options: StartOptions = {}): Promise<Platform> {
  const role = options.role ?? 'all';
  const logger = options.logger ?? createLogger(config.LOG_LEVEL);
  if (role !== 'all' && !config.DATABASE_URL)
    throw new ConfigError(`--role ${role} runs beside other processes: set DATABASE_URL to a shared PostgreSQL`);
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((error: Error) => logger.error({ err: error }, 'stop failed'));
  };
  try {
    let databaseUrl = config.DATABASE_URL;
    if (!databaseUrl) {
      const pg = await startEmbeddedPostgres({
        dataDir: path.join(config.DATA_DIR, 'postgres'),
        port: config.EMBEDDED_PG_PORT,
        log: (line) => logger.debug({ engine: 'postgres' }, line),
      });
      stops.push(() => pg.stop());
      databaseUrl = pg.url;
    }
    const db: SqlPool = createSqlPool(databaseUrl, config.PG_POOL_SIZE);
    stops.push(() => db.end());
    const store: EventStore = config.EVENTSTORE_URL
      ? await (await import('./event-store/kurrentdb.ts')).createKurrentEventStore({ url: config.EVENTSTORE_URL })
      : await createPostgresEventStore(db);
    stops.push(() => store.close());

    const metrics = createMetrics();
    const engines: EngineHealth[] = [
      { name: 'postgres', check: async () => (await db.query('select 1'), { ok: true }) },
      { name: `eventstore:${store.kind}`, check: () => store.health() },
    ];

    let timeseries: TimeSeriesStore | null = null;
    if (role === 'all' || role === 'ingest' || role === 'api') {
      timeseries = createTimeSeriesStore({ clickhouseUrl: config.CLICKHOUSE_URL, dataDir: config.DATA_DIR });
      await timeseries.migrate();
      const ts = timeseries;
      stops.push(() => ts.close());
      engines.push({
        name: `timeseries:${ts.engine}`,
        check: async () => ts.health().then((h) => ({ ok: h.ok, detail: h.error ?? h.version })),
      });
    }

    // The runner gets connections of its own, so that a burst of API requests cannot queue it out.
    const projectionDb = createSqlPool(databaseUrl, 2);
    stops.push(() => projectionDb.end());
    let bus: Bus | null = null;
    let mqtt: MqttPort | null = null;
    if (role === 'all' || role === 'ingest') {
      const b = config.KAFKA_BROKERS
        ? createKafkaBus({ brokers: kafkaBrokersFromEnv({ KAFKA_BROKERS: config.KAFKA_BROKERS }) })
        : createInProcessBus();
      bus = b;
      stops.push(() => b.close());
      engines.push({ name: config.KAFKA_BROKERS ? 'bus:kafka' : 'bus:in-process', check: () => b.health() });
      const m = config.MQTT_URL
        ? await connectExternalMqtt({ url: config.MQTT_URL })
        : await startEmbeddedMqtt({
            port: options.mqttPort ?? config.MQTT_PORT,
            // Devices authenticate once device management exists (a later issue); until then none may connect.
            authenticate: (client) => {
              logger.warn({ clientId: client.clientId }, 'mqtt connection refused: no device registry yet');
              return false;
            },
          });
      mqtt = m;
      stops.push(() => m.close());
      engines.push({ name: config.MQTT_URL ? 'mqtt:external' : 'mqtt:aedes', check: () => m.health() });
    }

    const runner = createProjectionRunner(store, projectionDb, projections, {
      onLag: (name, lagMs) => metrics.observeProjection(name, lagMs),
      onError: (name, error) => logger.error({ err: error, projection: name }, 'projection failed'),
    });
    await runner.setup();
    if (role === 'all' || role === 'projections') {
      await runner.startAll();
      stops.push(() => runner.stopAll());
    }

    const notifier = await createNotifier(db, logger, { smtpUrl: config.SMTP_URL, from: config.SMTP_FROM });
    const context: AppContext = {
      config,
      store,
      db,
      notifier,
      metrics: metrics.registry,
      logger,
      engines,
      awaitProjections: () => runner.catchUp(),
    };

    await db.query(credentialsSchema);
    await db.query(usernameClaimsSchema);
    // Names of users created before claims existed are claimed by their users.
    await db.query(`insert into username_claims (username, owner) select lower(username), id from rm_users on conflict do nothing`);
    const generatedAdminPassword = await seedSystemAdmin(context, config.ADMIN_PASSWORD);
    await seedBuiltinMenus(store);
    if (role === 'all' || role === 'projections') {
      await runner.catchUp(30_000);
      await provisionAllTenants(store, db);
      if (options.seedDemo) await seedDemoTenant(context, DEMO_TENANT);
    }

    let app: App | null = null;
    let url: string | null = null;
    if (role === 'all' || role === 'api') {
      const defaultStatic = path.resolve('web/dist');
      const staticDir =
        options.staticDir === undefined
          ? existsSync(path.join(defaultStatic, 'index.html'))
            ? defaultStatic
            : undefined
          : (options.staticDir ?? undefined);
      app = await createApp(context, routeModules, { staticDir });
      const listening = app;
      stops.push(() => listening.close());
      const address = await app.listen({ port: options.port ?? config.PORT, host: config.HOST });
      url = address.replace('0.0.0.0', 'localhost').replace('[::]', 'localhost');
    }
    if (role === 'all' || role === 'projections') await runner.catchUp(30_000).catch(() => {});

    return { url, app, context, runner, timeseries, bus, mqtt, generatedAdminPassword, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** Creates the system administrator on first start; its password comes from ADMIN_PASSWORD or is generated once. */
async function seedSystemAdmin(context: AppContext, adminPassword: string | undefined): Promise<string | null> {
  const stream = userStream(SYSTEM_TENANT, ADMIN_USER_ID);
  if ((await context.store.readStream(stream, { limit: 1 })).length > 0) return null;
  const password = adminPassword ?? randomBytes(9).toString('base64url').slice(0, 12);
  await claimUsername(context.db, 'admin', ADMIN_USER_ID);
  await handleCommand(
    context.store,
    userDecider,
    stream,
    {
      type: 'CreateUser',
      userId: ADMIN_USER_ID,
      username: 'admin',
      email: null,
      phone: null,
      sex: 'unknown',
      position: null,
      groupId: null,
      roleIds: [],
      description: 'System administrator',
      homePage: null,
      isSystemAdmin: true,
      isTenantAdmin: false,
    },
    { tenantId: SYSTEM_TENANT, actor: { kind: 'system', id: 'bootstrap' }, idempotencyKey: 'bootstrap-admin' },
  );
  await setPassword(context.db, ADMIN_USER_ID, SYSTEM_TENANT, password);
  return adminPassword ? null : password;
}

export interface SeedTenant {
  id: string;
  name: string;
  adminUsername: string;
  adminPassword: string;
}

export const DEMO_TENANT: SeedTenant = { id: 'demo', name: 'demo', adminUsername: 'demo', adminPassword: 'demo123456' };

/**
 * Creates an approved tenant with its administrator and built-in roles, as an approved registration would.
 * Idempotent. Used for the demo tenant and by tests.
 */
export async function seedDemoTenant(context: AppContext, tenant: SeedTenant): Promise<{ tenantId: string; adminUserId: string }> {
  const seedContext = { actor: { kind: 'system' as const, id: 'seed' } };
  const adminUserId = `${tenant.id}-admin`;
  await claimUsername(context.db, tenant.adminUsername, adminUserId);
  await handleCommand(
    context.store,
    tenantDecider,
    tenantStream(tenant.id),
    {
      type: 'RegisterTenant',
      tenantId: tenant.id,
      name: tenant.name,
      contactName: tenant.adminUsername,
      company: tenant.name,
      method: 'email',
      phone: null,
      email: null,
    },
    { ...seedContext, tenantId: tenant.id, idempotencyKey: 'seed-tenant' },
  );
  await handleCommand(
    context.store,
    tenantDecider,
    tenantStream(tenant.id),
    { type: 'ApproveTenant', tenantId: tenant.id, adminUserId },
    {
      ...seedContext,
      tenantId: tenant.id,
      idempotencyKey: 'seed-approve',
    },
  );
  const created = await handleCommand(
    context.store,
    userDecider,
    userStream(tenant.id, adminUserId),
    {
      type: 'CreateUser',
      userId: adminUserId,
      username: tenant.adminUsername,
      email: null,
      phone: null,
      sex: 'unknown',
      position: null,
      groupId: null,
      roleIds: [],
      description: 'Tenant administrator',
      homePage: null,
      isSystemAdmin: false,
      isTenantAdmin: true,
    },
    { ...seedContext, tenantId: tenant.id, idempotencyKey: 'seed-admin' },
  );
  if (created.applied) await setPassword(context.db, adminUserId, tenant.id, tenant.adminPassword);
  await provisionTenant(context.store, tenant.id, adminUserId, seedContext);
  await context.awaitProjections?.();
  return { tenantId: tenant.id, adminUserId };
}
