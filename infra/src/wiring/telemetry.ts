import type { Logger } from 'pino';
import type { FileStore, OtaFileLookup } from '@iot/contracts/ports/files.ts';
import { otaFileOfDevice } from '@iot/projections/ota/read.ts';
import { createDeviceDirectory } from '../read-models/device-directory.ts';
import type { Bus } from '@iot/contracts/ports/bus.ts';
import type { Dispatch } from '@iot/contracts/ports/dispatch.ts';
import type { LiveFeed } from '@iot/contracts/ports/live.ts';
import type { MqttPort } from '@iot/contracts/ports/mqtt.ts';
import type { TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import { startIngest, uplinkFilters, type ChainsOnTelemetry, type Ingest, type IngestOptions } from '@iot/ingest';
import { createAlarmReactor, type AlarmReactor } from '@iot/projections/index.ts';
import type { Config } from '../config.ts';
import type { EventStore } from '../event-store/port.ts';
import type { SqlPool } from '../postgres/sql.ts';
import { thingsboardRequests } from '../thingsboard-requests.ts';
import type { Stops } from './stops.ts';
import { openFileJournal } from '../timeseries/journal.ts';
import path from 'node:path';

export interface TelemetryWiring {
  config: Config;
  db: SqlPool;
  store: EventStore;
  timeseries: TimeSeriesStore;
  bus: Bus;
  mqtt: MqttPort;
  dispatch: Dispatch;
  live: LiveFeed;
  logger: Logger;
  /** More reactors on the telemetry beside the alarm rules (forwarding). */
  reactors?: NonNullable<IngestOptions['reactors']>;
  /** The tenants' rule chains, fed each stored batch. */
  chains?: ChainsOnTelemetry | null;
  /** Where uploaded files are (ThingsBoard's firmware chunks read rollout files from it); null without one. */
  files?: FileStore | null;
  /** The file a rollout sends a device, kept between its chunks (without it, the read model is asked at each). */
  otaFiles?: OtaFileLookup | null;
  /** Clients whose messages are not device messages (MQTT users): for other subscribers, not the platform's telemetry. */
  notDevice?: (clientId: string) => boolean;
}

/** The intake of device messages (ingest/src/pipeline.ts) on this process's broker, with the alarm rules' evaluator on its samples. */
export async function startTelemetry(
  w: TelemetryWiring,
  stops: Stops,
): Promise<{ ingest: Ingest; alarms: AlarmReactor; resumeChains(): void }> {
  const { config, mqtt, logger } = w;
  const alarms = createAlarmReactor({ db: w.db, dispatch: w.dispatch, onError: (err) => logger.error({ err }, 'alarm evaluation failed') });
  const publishTo = mqtt.publishTo?.bind(mqtt);
  const disconnect = mqtt.disconnect?.bind(mqtt);
  const opened = config.KAFKA_BROKERS || config.TELEMETRY_JOURNAL === 'false' ? null : await openTelemetryJournal(w);
  const journal = opened?.journal ?? null;
  if (journal) stops.push(() => journal.close());
  const ingest = await startIngest({
    db: w.db,
    directory: createDeviceDirectory(w.db),
    timeseries: w.timeseries,
    dispatch: w.dispatch,
    logger,
    kafka: config.KAFKA_BROKERS ? w.bus : null,
    journal,
    offlineAfterMs: config.PRESENCE_OFFLINE_AFTER_MS,
    heartbeatMs: config.PRESENCE_HEARTBEAT_MS,
    events: w.store,
    ownsSessions: !config.MQTT_URL,
    live: w.live,
    publish: (topic, payload) => mqtt.publish(topic, payload, { qos: 1 }),
    publishTo: publishTo ? (clientId, topic, payload) => publishTo(clientId, topic, payload, { qos: 1 }) : undefined,
    // ThingsBoard's client-side RPC and attribute requests: answered to the asking session, so on the embedded broker.
    thingsboard: publishTo
      ? (registry) =>
          thingsboardRequests({
            timeseries: w.timeseries,
            events: w.store,
            registry,
            publishTo: (clientId, topic, payload) => publishTo(clientId, topic, payload, { qos: 1 }),
          })
      : undefined,
    disconnect: disconnect ? (clientId) => disconnect(clientId) : undefined,
    // Over an external broker a command's reply may reach another ingest process: the waiting one watches for it too.
    watch: config.MQTT_URL ? (filter, handler) => mqtt.onMessage(filter, handler, { shared: false }) : undefined,
    reactors: [alarms, ...(w.reactors ?? [])],
    chains: w.chains ?? null,
    firmware: w.files
      ? {
          store: w.files,
          fileOf: (device) =>
            w.otaFiles ? w.otaFiles.ofDevice(device.tenantId, device.deviceId) : otaFileOfDevice(w.db, device.tenantId, device.deviceId),
        }
      : undefined,
  });
  const registrations = await Promise.all(
    (config.MQTT_URL ? uplinkFilters : ['#']).map((filter) =>
      mqtt.onMessage(filter, (message) =>
        message.clientId && w.notDevice?.(message.clientId) ? undefined : ingest.intake.handle(message),
      ),
    ),
  );
  stops.push(async () => {
    // An external broker's session keeps the subscriptions, so nothing is lost while this process is away.
    if (config.MQTT_URL) await mqtt.close();
    else await Promise.all(registrations.map((r) => r.off()));
    await ingest.stop();
  });
  return {
    ingest,
    alarms,
    /** Once the chains are loaded: the batches the last run stored and had not run through them go through now. */
    resumeChains() {
      ingest.chainsLoaded();
      const chains = w.chains;
      if (!chains || !journal) return;
      for (const { token, rows, sizes } of opened!.unchained)
        chains.observeBatch(rows, sizes, token).then(
          () => journal.chained(token),
          (err: unknown) => logger.error({ err }, 'rule chains did not run a recovered batch'),
        );
      if (opened!.unchained.length > 0)
        logger.warn({ batches: opened!.unchained.length }, 'rule chains: batches of the last run run again');
    },
  };
}

/**
 * Without Kafka, the journal that stores each acknowledged MQTT message once across a crash (issue 23): what the
 * last run journaled and did not mark inserted is inserted now, before any message is taken.
 */
async function openTelemetryJournal(w: TelemetryWiring) {
  const { config, logger } = w;
  const crashAfter = config.FAULT_CRASH_AFTER_INSERT;
  let inserts = 0;
  const journal = openFileJournal({
    // One per ingest process: over an external broker, one per persistent session.
    dir: path.resolve(config.DATA_DIR, config.MQTT_CLIENT_ID ? `telemetry-journal-${config.MQTT_CLIENT_ID}` : 'telemetry-journal'),
    // Fault injection for the crash tests: die like a killed process between an insert and its PUBACKs.
    afterInsert: crashAfter ? () => void (++inserts >= crashAfter && process.kill(process.pid, 'SIGKILL')) : undefined,
    chains: Boolean(w.chains),
  });
  const { unchained, ...recovered } = await journal.recover((rows, dedupToken) => w.timeseries.insertTelemetry(rows, { dedupToken }));
  if (recovered.batches > 0)
    logger.warn(recovered, 'telemetry journal: batches of the last run inserted again (their repeats are dropped)');
  return { journal, unchained };
}
