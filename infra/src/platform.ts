import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { claimExistingRoleNames } from '@iot/command/role/names.ts';
import { claimExistingDictCodes } from '@iot/command/dict/codes.ts';
import { claimExistingAppNames } from '@iot/command/app/names.ts';
import { claimExistingEmails, claimExistingPhones, claimExistingUsernames } from '@iot/command/user/usernames.ts';
import { seedBuiltinMenus } from '@iot/command/menu/builtin.ts';
import { provisionAllTenants } from '@iot/command/role/builtin.ts';
import {
  createAlarmReactor,
  createProjectionRunner,
  notificationReactor,
  projection,
  projections,
  type AlarmReactor,
  type ProjectionRunner,
} from '@iot/projections/index.ts';
import { createApp, type App } from '@iot/infra/http/app.ts';
import type { AppContext, EngineHealth } from '@iot/infra/http/context.ts';
import { ConfigError, type Config, type Role } from './config.ts';
import { createPostgresEventStore } from './event-store/postgres.ts';
import { withUpcasting } from './event-store/upcasting.ts';
import { upcasters } from '@iot/contracts/upcasters.ts';
import type { EventStore } from './event-store/port.ts';
import { createLogger } from './logger.ts';
import { createMetrics } from './metrics.ts';
import { alarmAddress } from '@iot/projections/alarm/read.ts';
import { deviceForRules, deviceGroupOf, productForRules } from '@iot/projections/device/read.ts';
import { createRuleChainReactor, type RuleChainReactor } from '@iot/projections/rule/reactor.ts';
import { createNotifier } from './notify/outbox.ts';
import { createChannels } from './notify/channels.ts';
import { startDelivery, type Delivery } from './notify/delivery.ts';
import { parseAllowList } from './outbound/address.ts';
import { createOutboundHttp } from './outbound/http.ts';
import { startEmbeddedPostgres } from './postgres/embedded.ts';
import { createSqlPool, PROJECTION_POOL_SIZE, type SqlPool } from './postgres/sql.ts';
import { createTimeSeriesStore, type TimeSeriesStore } from './timeseries/index.ts';
import { createInProcessBus } from './bus/in-process.ts';
import { createKafkaBus, kafkaBrokersFromEnv } from './bus/kafka.ts';
import type { Bus } from '@iot/contracts/ports/bus.ts';
import { brokerAddress, connectExternalMqtt } from './mqtt/client.ts';
import { connectMosquittoAccounts } from './broker-accounts/mosquitto.ts';
import { emqxAccounts } from './broker-accounts/emqx.ts';
import { noBrokerAccounts, type BrokerAccounts } from './broker-accounts/port.ts';
import { brokerAccountsReactor } from './broker-accounts/reactor.ts';
import { withBrokerSecrets } from './broker-accounts/secrets.ts';
import { createDeviceRegistry, SessionEnded, uplinkFilters } from '@iot/ingest';
import { mqttHookRoutes } from './mqtt/hooks.ts';
import { startEmbeddedMqtt } from './mqtt/embedded.ts';
import type { MqttPort } from '@iot/contracts/ports/mqtt.ts';

import { seedDemoData, seedSystemAdmin } from './seed.ts';
import {
  channels,
  routes,
  type AlarmEvent,
  type AlarmRuleEvent,
  type NotifySettings,
  type RuleChainEvent,
  type DeviceEvent,
} from '@iot/contracts';
import type { LiveFeed } from '@iot/contracts/ports/live.ts';
import type { Handlers, Ports } from '@iot/contracts/http/handler.ts';
import { commandDispatchers, commandHandlers, workflows } from '@iot/command';
import { workflowProjection } from './workflows.ts';
import { queryHandlers } from '@iot/query';
import { createLookups } from './read-models/lookups.ts';
import { createDispatch } from './dispatch.ts';
import { migrate, migrator } from './migrate/migrate.ts';
import { commandOwners } from './migrate/owners.ts';
import { createLiveRelay } from './http/live.ts';
import { startIngest, type Ingest } from './ingest.ts';
import { demoReadings, startSimulator } from './simulator.ts';
import { demoFleetDevices } from './seed-fleet.ts';
import type { DeviceIntakePort } from '@iot/contracts/ports/intake.ts';
import { createReadModelWatch } from './http/watch.ts';
import { createPrincipalCache } from './http/principals.ts';

/**
 * What the alarm events mean outside the read models: the evaluator learns of rule changes and of alarms
 * cleared by hand (so that a device and rule may raise again), and the `alarm.live` feed tells the screens.
 */
function alarmHooks(db: SqlPool, live: LiveFeed, alarms: AlarmReactor | null) {
  const names = {
    AlarmRaised: 'raised',
    AlarmRepeated: 'repeated',
    AlarmAcknowledged: 'acknowledged',
    AlarmProcessed: 'processed',
    AlarmCleared: 'cleared',
  } as const;
  return projection<AlarmRuleEvent | AlarmEvent>({
    name: 'reactor-alarm-hooks',
    handles: ['AlarmRuleCreated', 'AlarmRuleUpdated', 'AlarmRuleDeleted', ...(Object.keys(names) as (keyof typeof names)[])],
    schema: 'select 1',
    tables: [],
    async apply(_tx, event) {
      alarms?.onEvent(event);
      if (!(event.type in names) || !live.listening('alarm.live')) return;
      const { alarmId } = event.data as { alarmId: string };
      const raised = event.type === 'AlarmRaised' ? event.data : null;
      const row = await alarmAddress(db, alarmId);
      const deviceId = raised?.deviceId ?? row?.deviceId;
      if (!deviceId) return;
      const groupId = raised ? await deviceGroupOf(db, deviceId) : (row?.groupId ?? null);
      live.publish(
        'alarm.live',
        { tenantId: event.metadata.tenantId, groupId, deviceId },
        {
          alarmId,
          event: names[event.type as keyof typeof names],
          deviceId,
          level: raised?.level ?? row?.level ?? null,
          at: event.metadata.occurredAt,
        },
      );
    },
  });
}

/** What the notification settings screen shows of the configuration: whether and where, never a credential. */
function notifySettingsOf(config: Config): NotifySettings {
  const host = (url: string | undefined) => (url ? new URL(url).host : null);
  const sms = !!(
    config.SMS_ENDPOINT &&
    config.SMS_ACCESS_KEY_ID &&
    config.SMS_ACCESS_KEY_SECRET &&
    config.SMS_SIGN_NAME &&
    config.SMS_TEMPLATE_CODE
  );
  return {
    channels: [
      { kind: 'email', configured: !!config.SMTP_URL, target: host(config.SMTP_URL), variables: ['SMTP_URL', 'SMTP_FROM'] },
      {
        kind: 'sms',
        configured: sms,
        target: host(config.SMS_ENDPOINT),
        variables: ['SMS_ENDPOINT', 'SMS_ACCESS_KEY_ID', 'SMS_ACCESS_KEY_SECRET', 'SMS_SIGN_NAME', 'SMS_TEMPLATE_CODE'],
      },
      { kind: 'wechat', configured: !!config.WECOM_WEBHOOK, target: host(config.WECOM_WEBHOOK), variables: ['WECOM_WEBHOOK'] },
      {
        kind: 'dingtalk',
        configured: !!config.DINGTALK_WEBHOOK,
        target: host(config.DINGTALK_WEBHOOK),
        variables: ['DINGTALK_WEBHOOK', 'DINGTALK_SECRET'],
      },
      { kind: 'inApp', configured: true, target: null, variables: [] },
    ],
    tenantPerMinute: config.NOTIFY_TENANT_PER_MIN,
    contactPerMinute: config.NOTIFY_CONTACT_PER_MIN,
    retryMs: config.NOTIFY_RETRY_MS,
    ticketReminderMin: config.TICKET_REMINDER_MIN,
  };
}

/** Every route of the table bound to its handler: the compiler refuses a route without one. */
export const handlers: Handlers<typeof routes> = { ...commandHandlers, ...queryHandlers };

export { ADMIN_USER_ID, DEMO_TENANT, seedDemoTenant, type SeedTenant } from './seed.ts';

/** Rule chains learn of saves and switches of the running version from the log: the next message goes through it. */
function ruleChainHooks(rules: RuleChainReactor | null) {
  return projection<RuleChainEvent | DeviceEvent | AlarmEvent>({
    name: 'reactor-rule-chains',
    // Presence changes and raised alarms enter the root chains too (issue 19).
    handles: [
      'RuleChainCreated',
      'RuleChainSaved',
      'RuleChainVersionSwitched',
      'RuleChainDeleted',
      'DeviceWentOnline',
      'DeviceWentOffline',
      'AlarmRaised',
    ],
    schema: 'select 1',
    tables: [],
    async apply(_tx, event) {
      switch (event.type) {
        case 'RuleChainCreated':
        case 'RuleChainSaved':
        case 'RuleChainVersionSwitched':
        case 'RuleChainDeleted':
          return rules?.onEvent(event);
        case 'DeviceWentOnline':
        case 'DeviceWentOffline':
        case 'AlarmRaised':
          return rules?.observeLog(event);
        default:
          return;
      }
    },
  });
}

export interface Platform {
  url: string | null;
  app: App | null;
  context: AppContext;
  runner: ProjectionRunner;
  timeseries: TimeSeriesStore | null;
  bus: Bus | null;
  mqtt: MqttPort | null;
  /** The telemetry intake of an `all` or `ingest` process (sessions, counters, flush for tests). */
  ingest: Ingest | null;
  /** The alarm rules' evaluator on the telemetry (with the intake). */
  alarms: AlarmReactor | null;
  /** The tenants' root rule chains on the telemetry (with the intake). */
  rules: RuleChainReactor | null;
  /** The notification outbox's delivery worker (with the projections). */
  delivery: Delivery | null;
  /** Whether the demo tenant was seeded (its logins are in DEMO_TENANT and README). */
  demo: boolean;
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
    const lookups = createLookups(db);
    await migrate(db, commandOwners);
    stops.push(() => db.end());
    // Projections read the log and write read models on connections of their own, so that a burst of API
    // requests cannot queue them out.
    const projectionDb = createSqlPool(databaseUrl, PROJECTION_POOL_SIZE);
    stops.push(() => projectionDb.end());
    const engineStore: EventStore = config.EVENTSTORE_URL
      ? await (await import('./event-store/kurrentdb.ts')).createKurrentEventStore({ url: config.EVENTSTORE_URL })
      : await createPostgresEventStore(db, { subscriptionPool: projectionDb });
    // Every read hands out events at their newest schema version.
    const store = withUpcasting(engineStore, upcasters);
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

    // Device accounts on an external broker that keeps its own (Mosquitto's dynamic security): provisioned from
    // the device events by a reactor, and given each secret by the create and rotate routes.
    let accounts: BrokerAccounts = noBrokerAccounts;
    if (config.MQTT_URL && config.MQTT_DYNSEC === 'true') {
      const mosquitto = await connectMosquittoAccounts({ url: config.MQTT_URL });
      accounts = mosquitto;
      stops.push(() => mosquitto.close());
      engines.push({ name: 'mqtt:dynsec', check: () => mosquitto.health() });
      if (role === 'all' || role === 'ingest') {
        await mosquitto.grantPlatform(brokerAddress(config.MQTT_URL).username ?? '');
        // Accounts made by an earlier release are bound to their SN as client id (each device reconnects once).
        const bound = await mosquitto.bindClientIds();
        if (bound > 0) logger.info({ bound }, 'device accounts bound to their SN as client id');
      }
    } else if (config.MQTT_URL && config.EMQX_API_URL && config.EMQX_API_KEY && config.EMQX_API_SECRET) {
      // EMQX asks the hooks who may connect; its API cuts the sessions of a device that lost the right to them.
      accounts = emqxAccounts({ apiUrl: config.EMQX_API_URL, apiKey: config.EMQX_API_KEY, apiSecret: config.EMQX_API_SECRET });
      const emqx = accounts;
      engines.push({ name: 'mqtt:emqx-api', check: () => emqx.health() });
    }

    let bus: Bus | null = null;
    let deliveryRef: Delivery | null = null;
    let mqtt: MqttPort | null = null;
    let ingest: Ingest | null = null;
    if (role === 'all' || role === 'ingest') {
      const b = config.KAFKA_BROKERS
        ? createKafkaBus({ brokers: kafkaBrokersFromEnv({ KAFKA_BROKERS: config.KAFKA_BROKERS }) })
        : createInProcessBus();
      bus = b;
      stops.push(() => b.close());
      engines.push({ name: config.KAFKA_BROKERS ? 'bus:kafka' : 'bus:in-process', check: () => b.health() });
      const m = config.MQTT_URL
        ? await connectExternalMqtt({
            url: config.MQTT_URL,
            group: config.MQTT_SHARE_GROUP,
            // A persistent session: what this process had not acknowledged, and what arrives while it is away, waits for it.
            clientId: config.MQTT_CLIENT_ID ?? `ingest-${hostname()}`,
            persistentSession: true,
            onHandlerError: (error, message) => logger.error({ err: error, topic: message.topic }, 'device message failed'),
          })
        : await startEmbeddedMqtt({
            port: options.mqttPort ?? config.MQTT_PORT,
            // Devices are let in by the intake, once it is up (below): until then none may connect.
            // A device's client id is kept within its own namespace: no other device can take it over.
            authenticate: async (client, password) => {
              const session = await ingest?.intake.connect(
                client.clientId,
                client.connectionId ?? 0,
                client.username,
                password?.toString('utf8'),
              );
              return session ? { clientId: session.sessionId } : false;
            },
            authorizePublish: (client, topic) => ingest?.intake.mayPublish(client.clientId, topic) ?? false,
            authorizeSubscribe: (client, filter) => ingest?.intake.maySubscribe(client.clientId, filter) ?? false,
            onDisconnect: (client) => ingest?.intake.disconnect(client.clientId, client.connectionId ?? 0),
            onHandlerError: (error, message) =>
              error instanceof SessionEnded
                ? logger.info({ topic: message.topic }, 'message of a cut session refused')
                : logger.error({ err: error, topic: message.topic }, 'device message failed'),
          });
      mqtt = m;
      stops.push(() => m.close());
      engines.push({ name: config.MQTT_URL ? 'mqtt:external' : 'mqtt:aedes', check: () => m.health() });
    }

    const outgoing = createChannels({
      smtpUrl: config.SMTP_URL,
      from: config.SMTP_FROM,
      sms:
        config.SMS_ENDPOINT && config.SMS_ACCESS_KEY_ID && config.SMS_ACCESS_KEY_SECRET && config.SMS_SIGN_NAME && config.SMS_TEMPLATE_CODE
          ? {
              endpoint: config.SMS_ENDPOINT,
              accessKeyId: config.SMS_ACCESS_KEY_ID,
              accessKeySecret: config.SMS_ACCESS_KEY_SECRET,
              signName: config.SMS_SIGN_NAME,
              templateCode: config.SMS_TEMPLATE_CODE,
            }
          : undefined,
      wecomWebhook: config.WECOM_WEBHOOK,
      dingtalkWebhook: config.DINGTALK_WEBHOOK,
      dingtalkSecret: config.DINGTALK_SECRET,
    });
    stops.push(async () => outgoing.close());
    // Every URL a tenant sets is called through the guard (issue 24): no internal address unless the operator allows its range.
    const outbound = createOutboundHttp({ allow: parseAllowList(config.OUTBOUND_ALLOW_CIDRS) });
    stops.push(() => outbound.close());
    // Verification codes and audit results go through the same channels as alarm notifications.
    const notifier = await createNotifier(db, logger, outgoing);
    const live = createLiveRelay();
    const dispatch = createDispatch(
      commandDispatchers({
        store,
        db,
        notifier,
        lookups,
        live,
        timeseries,
        intake: null,
        // The downlink of this process's intake, once it is up (desired values re-sent at reconnect go out on it).
        link: {
          send: (device, message, waitMs) =>
            ingest?.link.send(device, message, waitMs) ?? Promise.resolve({ ok: false, reason: 'offline' }),
          reachable: async (device) => (await ingest?.link.reachable(device)) ?? false,
        },
      }),
    );
    let alarms: AlarmReactor | null = null;
    let rules: RuleChainReactor | null = null;
    if (mqtt && timeseries) {
      alarms = createAlarmReactor({ db, dispatch, onError: (err) => logger.error({ err }, 'alarm evaluation failed') });
      const series = timeseries;
      rules = createRuleChainReactor({
        db,
        ports: {
          dispatch,
          lookups: {
            device: (tenantId, deviceId) => deviceForRules(db, tenantId, deviceId),
            product: (tenantId, productId) => productForRules(db, tenantId, productId),
            latest: async (tenantId, deviceId, variables) =>
              Object.fromEntries(
                (await series.latest({ tenantId, deviceIds: [deviceId], variables })).map((r) => [r.variable, r.value ?? r.text]),
              ),
          },
          sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()),
        },
        onFailure: (failure) => logger.warn({ failure }, 'rule chain node failed'),
        onError: (err) => logger.error({ err }, 'rule chain run failed'),
      });
      const started = await startIngest({
        db,
        timeseries,
        dispatch,
        logger,
        kafka: config.KAFKA_BROKERS ? bus : null,
        offlineAfterMs: config.PRESENCE_OFFLINE_AFTER_MS,
        heartbeatMs: config.PRESENCE_HEARTBEAT_MS,
        events: store,
        ownsSessions: !config.MQTT_URL,
        live,
        publish: (topic, payload) => mqtt!.publish(topic, payload, { qos: 1 }),
        publishTo: mqtt.publishTo ? (clientId, topic, payload) => mqtt!.publishTo!(clientId, topic, payload, { qos: 1 }) : undefined,
        disconnect: mqtt.disconnect ? (clientId) => mqtt!.disconnect!(clientId) : undefined,
        // Over an external broker a command's reply may reach another ingest process: the waiting one watches for it too.
        watch: config.MQTT_URL ? (filter, handler) => mqtt!.onMessage(filter, handler, { shared: false }) : undefined,
        reactors: [alarms, rules],
      });
      ingest = started;
      const broker = mqtt;
      const registrations = await Promise.all(
        (config.MQTT_URL ? uplinkFilters : ['#']).map((filter) => broker.onMessage(filter, (message) => started.intake.handle(message))),
      );
      stops.push(async () => {
        // An external broker's session keeps the subscriptions, so nothing is lost while this process is away.
        if (config.MQTT_URL) await broker.close();
        else await Promise.all(registrations.map((r) => r.off()));
        await started.stop();
      });
    }
    const crashAfter = config.FAULT_CRASH_AFTER_STEP;
    const afterStep = (workflow: string, step: string) => {
      logger.debug({ workflow, step }, 'workflow step done');
      // Fault injection for the crash tests: die like a killed process between two steps.
      if (crashAfter === `${workflow}:${step}`) process.kill(process.pid, 'SIGKILL');
    };
    const runner = createProjectionRunner(
      store,
      projectionDb,
      [
        ...projections,
        ...workflows.map((w) => workflowProjection(w, dispatch, afterStep)),
        notificationReactor({ tenantPerMinute: config.NOTIFY_TENANT_PER_MIN, contactPerMinute: config.NOTIFY_CONTACT_PER_MIN }),
        alarmHooks(db, live, alarms),
        ruleChainHooks(rules),
        ...(accounts === noBrokerAccounts ? [] : [brokerAccountsReactor(accounts)]),
      ],
      {
        onLag: (name, lagMs) => metrics.observeProjection(name, lagMs),
        onError: (name, error) => logger.error({ err: error, projection: name }, 'projection failed'),
        migrate: migrator(db),
      },
    );
    await runner.setup();
    if (rules) {
      const reactor = rules;
      await reactor.load();
      // Processes that do not run the projections learn of saved and switched chains this way.
      const reload = setInterval(
        () => void reactor.load().catch((err: unknown) => logger.error({ err }, 'rule chains not reloaded')),
        30_000,
      );
      stops.push(async () => clearInterval(reload));
      stops.push(() => reactor.drain());
    }
    if (alarms) {
      const reactor = alarms;
      await reactor.load();
      // Processes that do not run the projections learn of rule changes and hand-cleared alarms this way.
      const reload = setInterval(
        () => void reactor.load().catch((err: unknown) => logger.error({ err }, 'alarm rules not reloaded')),
        30_000,
      );
      stops.push(async () => clearInterval(reload));
      // The pending duration windows, written before the process goes.
      stops.push(() => reactor.flush());
    }
    if (role === 'all' || role === 'projections') {
      await runner.startAll();
      stops.push(() => runner.stopAll());
      const delivery = startDelivery({
        db,
        logger,
        live,
        reminderMin: config.TICKET_REMINDER_MIN,
        backoffMs: config.NOTIFY_RETRY_MS,
        channels: outgoing,
        outbound,
        from: config.SMTP_FROM,
      });
      deliveryRef = delivery;
      stops.push(() => delivery.stop());
    }

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

    // Names of users created before claims existed are claimed by their users.
    await claimExistingUsernames(db, lookups);
    const generatedAdminPassword = await seedSystemAdmin(context, config.ADMIN_PASSWORD);
    await seedBuiltinMenus(store);
    const demo =
      (role === 'all' || role === 'projections') &&
      (options.seedDemo ?? (config.DEMO_DATA ? config.DEMO_DATA === 'true' : !config.DATABASE_URL));
    if (role === 'all' || role === 'projections') {
      // Seeding reads the read models; a long log still being projected must not stop the start.
      await runner.catchUp(30_000).catch((error: Error) => logger.warn({ err: error }, 'projections still catching up'));
      await provisionAllTenants(store, lookups);
      if (demo) await seedDemoData(context);
      // Names and codes of rows made before claims existed are claimed by their rows.
      await claimExistingRoleNames(db, lookups);
      await claimExistingDictCodes(db, lookups);
      await claimExistingAppNames(db, lookups);
      await claimExistingEmails(db, lookups);
      await claimExistingPhones(db, lookups);
    }
    // A newcomer's first start shows live values: the demo fleet publishes over the embedded broker.
    if (demo && role === 'all' && mqtt && !config.MQTT_URL && config.DEMO_FLEET !== '0') {
      await runner.catchUp(10_000).catch(() => undefined);
      const simulator = await startSimulator({
        url: (mqtt as { url: string } & MqttPort).url,
        devices: demoFleetDevices(),
        readings: demoReadings,
        intervalMs: 5_000,
        onError: (err) => logger.debug({ err }, 'demo simulator'),
      });
      stops.push(() => simulator.stop());
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
      const intakePort: DeviceIntakePort | null = ingest
        ? {
            report: async ({ sn, secret, token }, body) => {
              const device = await ingest!.registry.authenticate(token ?? sn, token ? undefined : secret);
              return device ? ingest!.intake.handleHttp(device, body) : null;
            },
          }
        : null;
      const ports: Ports = {
        store,
        db,
        notifier,
        dispatch,
        lookups,
        live,
        timeseries,
        intake: intakePort,
        link: ingest?.link ?? null,
        outbound,
        notifySettings: notifySettingsOf(config),
      };
      const watch = role === 'all' ? createReadModelWatch({ local: () => runner.status() }) : createReadModelWatch({ db: projectionDb });
      const principals = createPrincipalCache(db, store, watch);
      await principals.start();
      stops.push(() => principals.stop());
      // EMQX asks the platform whether a device may connect, publish and subscribe (README "External MQTT broker").
      const hooks = config.MQTT_HOOK_SECRET
        ? [
            mqttHookRoutes({
              secret: config.MQTT_HOOK_SECRET,
              // The intake's registry forgets a device as it changes; without one here, nothing is kept.
              registry: ingest?.registry ?? createDeviceRegistry(db, { deviceTtlMs: 0 }),
              platform: config.MQTT_URL ? brokerAddress(config.MQTT_URL) : undefined,
            }),
          ]
        : [];
      app = await createApp(context, hooks, {
        staticDir,
        resolvePrincipal: (token) => principals.resolve(token),
        channels: { specs: channels, lookups: ports.lookups, onHub: (hub) => live.attach(hub) },
        trustedProxies: config.TRUSTED_PROXIES?.split(',')
          .map((p) => p.trim())
          .filter(Boolean),
        cookieDomain: config.COOKIE_DOMAIN,
        table: {
          routes,
          handlers: (accounts === noBrokerAccounts ? handlers : withBrokerSecrets(handlers, accounts, logger)) as unknown as Handlers<
            Record<string, never>
          >,
          ports,
          watch,
        },
      });
      const listening = app;
      stops.push(() => listening.close());
      const address = await app.listen({ port: options.port ?? config.PORT, host: config.HOST });
      url = address.replace('0.0.0.0', 'localhost').replace('[::]', 'localhost');
    }
    if (role === 'all' || role === 'projections') await runner.catchUp(30_000).catch(() => {});

    return {
      url,
      app,
      context,
      runner,
      timeseries,
      bus,
      mqtt,
      ingest,
      alarms,
      rules,
      delivery: deliveryRef,
      demo,
      generatedAdminPassword,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
