import { setFlagsFromString } from 'node:v8';
import type { Logger } from 'pino';
import { commandDispatchers, commandHandlers } from '@iot/command';
import type { routes } from '@iot/contracts';
import type { Handlers } from '@iot/contracts/http/handler.ts';
import type { Bus } from '@iot/contracts/ports/bus.ts';
import type { MqttPort } from '@iot/contracts/ports/mqtt.ts';
import type { FileStore } from '@iot/contracts/ports/files.ts';
import type { Ingest } from '@iot/ingest';
import type { AlarmReactor, ProjectionRunner } from '@iot/projections/index.ts';
import { queryHandlers } from '@iot/query';
import { ConfigError, type Config, type Role } from './config.ts';
import { createDispatch } from './dispatch.ts';
import type { App } from './http/app.ts';
import type { AppContext } from './http/context.ts';
import { createLiveRelay } from './http/live.ts';
import { createLogger } from './logger.ts';
import { createMetrics } from './metrics.ts';
import { startDelivery, type Delivery } from './notify/delivery.ts';
import type { TimeSeriesStore } from './timeseries/index.ts';
import { startBrokerAccounts } from './wiring/broker-accounts.ts';
import { createBrokerAdmin } from './mqtt/admin.ts';
import { startDeviceLink, type DeviceLink } from './wiring/device-link.ts';
import { startHttp } from './wiring/http.ts';
import { notifySettingsOf, startOutgoing } from './wiring/notify.ts';
import { setUpProjections } from './wiring/projections.ts';
import { seedAtStart, seedsDemo, startDemoSimulator } from './wiring/seed.ts';
import { DEMO_TENANT } from './seed.ts';
import { seedDemoEnergyHistory } from './seed-analysis.ts';
import { runs, stopInReverse, type Stops } from './wiring/stops.ts';
import { startStorage, startTimeseries } from './wiring/storage.ts';
import { startTelemetry } from './wiring/telemetry.ts';
import { createOtaFileLookup } from './files/ota-files.ts';
import { startForwarding, type ForwardingWiring } from './wiring/forward.ts';
import { createRuleChains, loadRuleChains } from './wiring/rules.ts';
import type { RuleChainReactor } from '@iot/projections/rule/reactor.ts';
import { createMqttUserAuth } from './mqtt/users.ts';
import { startStatScheduler } from './wiring/stat.ts';
import { startFiles } from './wiring/files.ts';
import { createDownloadLinks } from './files/download-links.ts';
import { startOtaTicker } from './wiring/ota.ts';
import { startRestartTicker } from './wiring/restart.ts';
import { createScenes, loadScenes, startSceneScheduler } from './wiring/scenes.ts';
import type { SceneReactor } from '@iot/projections/scene/reactor.ts';
import { startReportScheduler } from './wiring/report.ts';

/** Every route of the table bound to its handler: the compiler refuses a route without one. */
export const handlers: Handlers<typeof routes> = { ...commandHandlers, ...queryHandlers };

export { ADMIN_USER_ID, DEMO_TENANT, seedDemoTenant, type SeedTenant } from './seed.ts';

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
  /** The notification outbox's delivery worker (with the projections). */
  delivery: Delivery | null;
  /** The tenants' root rule chains on the telemetry (with the intake). */
  rules: RuleChainReactor | null;
  /** The scenes' device triggers and invokes. */
  scenes: SceneReactor;
  /** Forwarding: the rules on the telemetry (with the intake) and the outbox's delivery worker (with the projections). */
  forward: Pick<ForwardingWiring, 'reactor' | 'delivery'>;
  /** Whether the demo tenant was seeded (its logins are in DEMO_TENANT and README). */
  demo: boolean;
  /** The system administrator's password when this start generated it (shown once). */
  generatedAdminPassword: string | null;
  /** Removes abandoned uploads now, as if at `now` (they also go on their own clock); 0 in a process without files. */
  sweepUploads(now?: Date): Promise<number>;
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
  /** A store of uploaded files to use instead of the configured one (a test's): ThingsBoard's firmware chunks read from it. */
  fileStore?: FileStore;
}

/**
 * How far V8 lets the old generation grow past what survived the last full collection before it collects again
 * (issue 23, "Memory"). Left to itself V8 picks a factor up to 4 when collections are quick, and the device import's
 * garbage (appends in flight across PostgreSQL round trips, promoted and dying old) grew the heap to 3 times its live
 * set. A factor of 2 bounds it without a cap that would kill the process: 100k-device import at load 17-18, heap used
 * peak 462 -> 234 MB, RSS peak 930 -> 743 MB, Node CPU per 1,000 devices 327 -> 320 ms; 25% (factor 1.25) held 667 MB
 * but cost 15% more CPU. A `--heap-growing-percent` given to node itself is left alone.
 */
const HEAP_GROWING_PERCENT = 100;
function boundHeapGrowth(): void {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) => /heap[-_]growing[-_]percent/.test(a));
  if (!given) setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/** Starts the platform's engines and roles in this process (the composition root) and returns how to stop them in order. */
export async function startPlatform(config: Config, options: StartOptions = {}): Promise<Platform> {
  boundHeapGrowth();
  const role = options.role ?? 'all';
  const part = runs(role);
  const logger = options.logger ?? createLogger(config.LOG_LEVEL);
  if (role !== 'all' && !config.DATABASE_URL)
    throw new ConfigError(`--role ${role} runs beside other processes: set DATABASE_URL to a shared PostgreSQL`);
  const stops: Stops = [];
  const stopAll = stopInReverse(stops, logger);
  try {
    const { db, databaseUrl, projectionDb, store, lookups, engines } = await startStorage(config, logger, stops);
    const metrics = createMetrics();
    const timeseries = part.timeseries ? await startTimeseries(config, stops, engines, part.ingest) : null;
    const accounts = await startBrokerAccounts(config, part.ingest, logger, stops, engines);
    let ingest: Ingest | null = null;
    const mqttUsers = part.ingest && !config.MQTT_URL ? createMqttUserAuth(db) : null;
    const link: DeviceLink | null = part.ingest
      ? await startDeviceLink(config, options.mqttPort, () => ingest?.intake, logger, stops, engines, mqttUsers)
      : null;
    const { outgoing, outbound, notifier } = await startOutgoing(config, db, logger, stops);
    // The API serves uploads and downloads; the ingest reads rollout files for ThingsBoard's firmware chunks.
    const files = part.api || part.ingest ? await startFiles(config, engines, db, logger, stops) : null;
    // Which file a rollout sends a device, asked at every range and chunk of its download: kept, ended by the event log.
    const otaFiles = files || options.fileStore ? createOtaFileLookup(db, store) : null;
    if (otaFiles) {
      await otaFiles.start();
      stops.push(() => otaFiles.stop());
    }
    const forwarding = startForwarding(
      {
        config,
        db,
        databaseUrl,
        outbound,
        logger,
        withIntake: Boolean(link && part.timeseries),
        mqttPort: link ? (options.mqttPort ?? config.MQTT_PORT) : null,
      },
      stops,
    );
    const live = createLiveRelay();
    // Rollout offers carry a signed link to the API, whose address is known once it listens (OTA_URL_BASE overrides).
    let apiUrl = `http://localhost:${config.PORT}`;
    const downloadLinks = createDownloadLinks({
      secret: config.OTA_URL_SECRET,
      ttlSec: config.OTA_URL_TTL_SEC,
      base: () => config.OTA_URL_BASE ?? apiUrl,
    });
    const dispatch = createDispatch(
      commandDispatchers({
        store,
        db,
        notifier,
        lookups,
        live,
        timeseries,
        intake: null,
        downloadLinks,
        // The downlink of this process's intake, once it is up (desired values re-sent at reconnect go out on it).
        link: {
          send: (device, message, waitMs) =>
            ingest?.link.send(device, message, waitMs) ?? Promise.resolve({ ok: false, reason: 'offline' }),
          reachable: async (device) => (await ingest?.link.reachable(device)) ?? false,
        },
      }),
    );
    let alarms: AlarmReactor | null = null;
    let resumeChains = () => undefined as void;
    const notifyCaps = { tenantPerMinute: config.NOTIFY_TENANT_PER_MIN, contactPerMinute: config.NOTIFY_CONTACT_PER_MIN };
    const rules =
      link && timeseries
        ? createRuleChains({
            db,
            timeseries,
            dispatch,
            logger,
            caps: notifyCaps,
            ...(config.FAULT_STALL_FORWARD_AFTER === undefined ? {} : { stallForwardAfter: config.FAULT_STALL_FORWARD_AFTER }),
          })
        : null;
    const scenes = createScenes({ db, timeseries, dispatch, logger, caps: notifyCaps });
    if (link && timeseries) {
      ({ ingest, alarms, resumeChains } = await startTelemetry(
        {
          config,
          db,
          store,
          timeseries,
          ...link,
          dispatch,
          live,
          logger,
          reactors: [...(forwarding.reactor ? [forwarding.reactor] : []), scenes.reactor],
          chains: rules?.reactor ?? null,
          notDevice: (clientId) => mqttUsers?.owns(clientId) ?? false,
          files: options.fileStore ?? files?.files ?? null,
          otaFiles,
        },
        stops,
      ));
    }
    const brokerAdmin = link
      ? createBrokerAdmin({
          mqtt: link.mqtt,
          embedded: link.embedded,
          ...(config.MQTT_URL ? { externalUrl: config.MQTT_URL } : {}),
          deviceOf: (clientId) => ingest?.intake.sessions.get(clientId)?.device,
          mqttUserTenant: (clientId) => mqttUsers?.tenantOf(clientId),
        })
      : null;
    if (brokerAdmin) stops.push(async () => brokerAdmin.stop());
    const reactors = [
      ...(mqttUsers ? [mqttUsers.hooks] : []),
      ...(forwarding.reactor ? [forwarding.reactor.hooks] : []),
      ...(rules ? [rules.hooks] : []),
      scenes.hooks,
    ];
    const runner = await setUpProjections(
      { config, store, db, projectionDb, dispatch, live, alarms, timeseries, accounts, metrics, logger, reactors },
      stops,
    );
    await forwarding.loadRules();
    if (rules) await loadRuleChains(rules, logger, stops);
    resumeChains();
    await loadScenes(scenes.reactor, logger, stops);
    let delivery: Delivery | null = null;
    if (!part.projections) await ingest?.reconcilePresence();
    if (part.projections) {
      await runner.startAll();
      stops.push(() => runner.stopAll());
      // Who the log says is online is read from the device read model: once it has caught up with the log.
      const started = ingest;
      if (started)
        void runner
          .catchUp(30_000)
          .catch(() => undefined)
          .then(() => started.reconcilePresence());
      const d = startDelivery({
        db,
        logger,
        live,
        channels: outgoing,
        outbound,
        from: config.SMTP_FROM,
        reminderMin: config.TICKET_REMINDER_MIN,
        backoffMs: config.NOTIFY_RETRY_MS,
      });
      delivery = d;
      stops.push(() => d.stop());
      forwarding.startDelivery();
      // Statistic tasks run where the read models and the time-series store meet (role all).
      if (timeseries) startStatScheduler(db, timeseries, live, logger, stops);
      startOtaTicker(db, dispatch, logger, stops, config.OTA_TICK_MS);
      // Restart tasks keep the same clock as the rollouts (OTA_TICK_MS).
      startRestartTicker(db, dispatch, logger, stops, config.OTA_TICK_MS);
      // Every process with the projections runs the timing triggers; each fire is claimed once between them.
      startSceneScheduler(db, timeseries, dispatch, logger, stops, notifyCaps);
      // Scheduled reports are queued in the outbox that the delivery worker above sends (a claim row per period).
      if (timeseries) startReportScheduler(db, timeseries, logger, stops);
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
    const demo = seedsDemo(config, part.projections, options.seedDemo);
    const { generatedAdminPassword } = await seedAtStart(context, lookups, runner, {
      projections: part.projections,
      demo,
      ota: { dispatch, files: options.fileStore ?? files?.files ?? null },
    });
    if (demo && timeseries) await seedDemoEnergyHistory(timeseries, DEMO_TENANT.id);
    if (demo && role === 'all' && link?.embeddedUrl && config.DEMO_FLEET !== '0')
      await startDemoSimulator(link.embeddedUrl, runner, logger, stops);

    const served = part.api
      ? await startHttp(
          {
            config,
            role,
            context,
            handlers,
            live,
            ingest,
            accounts,
            runner,
            projectionDb,
            ports: {
              store,
              db,
              notifier,
              dispatch,
              lookups,
              live,
              timeseries,
              outbound,
              notifySettings: notifySettingsOf(config),
              forwarding: { mqtt: forwarding.mqtt, localPorts: forwarding.localPorts, retryDeadLetters: forwarding.retryDeadLetters },
              ...(files ? { files: files.files, fileLimits: files.fileLimits, downloadLinks } : {}),
              ...(otaFiles ? { otaFiles } : {}),
              ...(brokerAdmin ? { brokerAdmin } : {}),
            },
            ...(files ? { tus: files.tus } : {}),
            staticDir: options.staticDir,
            port: options.port,
          },
          stops,
        )
      : null;
    if (served?.url) apiUrl = served.url;
    if (served?.url) forwarding.localPorts.push(Number(new URL(served.url).port));
    if (part.projections) await runner.catchUp(30_000).catch(() => {});

    return {
      url: served?.url ?? null,
      app: served?.app ?? null,
      context,
      runner,
      timeseries,
      bus: link?.bus ?? null,
      mqtt: link?.mqtt ?? null,
      ingest,
      sweepUploads: (now?: Date) => files?.sweepUploads(now) ?? Promise.resolve(0),
      alarms,
      delivery,
      rules: rules?.reactor ?? null,
      scenes: scenes.reactor,
      forward: { reactor: forwarding.reactor, delivery: forwarding.delivery },
      demo,
      generatedAdminPassword,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
