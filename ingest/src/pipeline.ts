import type { Dispatch } from '@iot/contracts/ports/dispatch.ts';
import { createOtaReporter } from './ota/progress.ts';
import { createFirmwareChunks } from './ota/firmware.ts';
import type { FileStore } from '@iot/contracts/ports/files.ts';
import type { LiveFeed } from '@iot/contracts/ports/live.ts';
import type { TelemetryRow, TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { createDownlink } from './downlink.ts';
import { createIntake, type DeviceMessage, type TelemetrySink } from './intake.ts';
import { createPresence } from './presence.ts';
import type { DeviceDirectory } from '@iot/contracts/ports/device-directory.ts';
import { createDeviceRegistry, type DeviceRegistry, type DeviceRef } from './registry.ts';
import { followDeviceChanges, followedDeviceChanges, sweepSilentDevices } from './sessions.ts';
import { createIntakeTables } from './tables.ts';
import type { ThingsboardRequests } from './thingsboard.ts';
import type { DeviceEvent, TenantEvent } from '@iot/contracts';
import type { EventStore, StoredEventOf } from '@iot/contracts/ports/event-store.ts';
import type { Bus } from '@iot/contracts/ports/bus.ts';
import type { TelemetryJournal } from '@iot/contracts/ports/telemetry-journal.ts';
import { WriteBatcher } from './batcher.ts';
import { busTelemetrySink, startTimeseriesWriter } from './writer.ts';

type DeviceOfRows = { deviceId: string; tenantId: string; productId: string };

/** The rule chains as the pipeline feeds them (projections/src/rule/reactor.ts). */
export interface ChainsOnTelemetry {
  observeEvent(device: DeviceOfRows, identifier: string, payload: unknown, ts: Date): void;
  /** Settles once every message of the batch (`sizes`: rows per message, in order) went through the chains. */
  observeBatch(rows: readonly TelemetryRow[], sizes: readonly number[], batchId: string | null): Promise<void>;
  /** Resolves once the chains have room for more messages. */
  room(): Promise<void>;
}

/** Where the pipeline reports what went wrong: the process's log. */
export interface IngestLog {
  error(context: object, message: string): void;
}

export interface IngestOptions {
  db: Sql;
  /** The devices as the intake asks about them (the device read module, bound by infra/). */
  directory: DeviceDirectory;
  timeseries: TimeSeriesStore;
  dispatch: Dispatch;
  logger: IngestLog;
  /** Kafka between the intake and the writer: a publish is durable once Kafka has it. Absent: straight to the store. */
  kafka?: Bus | null;
  /** Without Kafka: the write-ahead log that stores each acknowledged MQTT message once across a crash (issue 23). */
  journal?: TelemetryJournal | null;
  offlineAfterMs?: number;
  /** A device heard from only by its reports (HTTP, a sub-device, any device over an external broker) is offline after this long without one. */
  heartbeatMs?: number;
  /** The reactors on the telemetry (alarm rules): told of every stored sample and reported event. */
  reactors?: {
    observe(device: { deviceId: string; tenantId: string; productId: string }, rows: readonly TelemetryRow[]): void;
    observeEvent(device: { deviceId: string; tenantId: string; productId: string }, identifier: string, payload: unknown, ts: Date): void;
  }[];
  /**
   * The tenants' rule chains (issue 19). Without Kafka each stored batch enters them whole once inserted, under its
   * journal token when it has one (marked in the journal once they ran it, so a crash runs it again at the next start),
   * and a writer waits while they are past their bound (back-pressure); with Kafka the writer runs each consumed batch
   * through them before the bus moves its position, each message under an id named by its offset.
   */
  chains?: ChainsOnTelemetry | null;
  live?: LiveFeed;
  /** The event log: devices the intake keeps are forgotten as they change (disabled, deleted, rotated, tenant stopped). */
  events?: Pick<EventStore, 'subscribe' | 'headPosition' | 'readStream'>;
  /** The broker's downlink: commands go out on it. */
  publish?: (topic: string, payload: object) => Promise<void>;
  /** This process sees every device session (the embedded broker): devices left online by a previous run are reconciled. */
  ownsSessions?: boolean;
  /**
   * External broker: a subscription of this process alone (not shared), for the reply to a command it waits for,
   * which the shared subscription may hand to another ingest process.
   */
  watch?: (topicFilter: string, handler: (message: DeviceMessage) => Promise<void>) => Promise<{ off(): Promise<void> }>;
  /** ThingsBoard's client-side RPC and attribute requests, answered to the asking session (embedded broker only). */
  thingsboard?: (registry: DeviceRegistry) => ThingsboardRequests;
  /** To one client only (ThingsBoard's `me` topics name no device); embedded broker only. */
  publishTo?: (clientId: string, topic: string, payload: object) => Promise<boolean>;
  /** Where rollout files are read from for ThingsBoard's chunk download, and which file a device's running rollout sends it. */
  firmware?: { store: FileStore; fileOf(device: DeviceRef): Promise<{ storageKey: string; size: number } | null> };
  /** Ends a session now (its device lost the right to it); embedded broker only: an external one cuts its own (broker accounts). */
  disconnect?: (clientId: string) => Promise<boolean>;
}

/**
 * The telemetry pipeline of one ingest process (issue 11): device authentication and sessions, validation
 * against the thing model, presence, dead letters, and the writer. Embedded, accepted rows go to the
 * time-series store through a group-commit batcher and a QoS 1 message is acknowledged once they are
 * inserted; with Kafka, once Kafka has them, and a consumer group writes them to the store, committing its
 * offsets only after the insert.
 */
export async function startIngest(options: IngestOptions) {
  const { db, timeseries, logger } = options;
  const tables = createIntakeTables(db, { onError: (err) => logger.error({ err }, 'intake tables flush failed') });
  const presence = createPresence({
    dispatch: options.dispatch,
    offlineAfterMs: options.offlineAfterMs,
    heartbeatTimeoutMs: options.heartbeatMs,
    // An external broker's processes each see some of a device's reports: presence is kept in the read model.
    shared: !options.ownsSessions,
    // An external broker tells no connects: a device recorded back online gets its desired values again.
    onWentOnline: options.ownsSessions ? undefined : (device) => downlink.resendLater(device, 1_000),
    onError: (err) => logger.error({ err }, 'presence not recorded'),
  });
  const journal = options.kafka ? null : options.journal;
  const chains = options.chains ?? null;
  /** A stored batch into the chains: marked in the journal once they ran all of it. */
  const chain = (rows: TelemetryRow[], sizes: number[], token: string | null) => {
    if (!chains) return;
    chains.observeBatch(rows, sizes, token).then(
      () => token !== null && journal?.chained(token),
      (err: unknown) => logger.error({ err }, 'rule chains did not run a batch'),
    );
  };
  /**
   * The inserts one after another, in the order the batches were taken: the next batch is journaled (its fsync) while
   * one inserts, and inserts after it. `started` runs as the insert begins: the batcher may then take the next batch.
   */
  let inserted: Promise<unknown> = Promise.resolve();
  const inOrder = (insert: () => Promise<void>, started: () => void): Promise<void> => {
    const next = inserted.then(() => {
      started();
      return insert();
    });
    inserted = next.catch(() => undefined);
    return next;
  };
  const batcher = new WriteBatcher<TelemetryRow, string>(
    async (rows, keys, sizes, handOff) => {
      // A batch of no QoS 1 message (HTTP reports, QoS 0) is not resent by anyone: no journal, no token.
      if (journal && keys.length > 0)
        chain(
          rows,
          sizes,
          await journal.write(
            rows,
            keys,
            // Called once the batch is on disk: acknowledged after its insert, or stored at the next start.
            (batch, dedupToken) => inOrder(() => timeseries.insertTelemetry(batch, { dedupToken }), handOff),
            sizes,
          ),
        );
      else {
        await inOrder(
          () => timeseries.insertTelemetry(rows),
          () => undefined,
        );
        chain(rows, sizes, null);
      }
      await chains?.room();
    },
    100_000,
    // HTTP clients and devices with a window of QoS 1 messages call again once answered: few rows wait for the others.
    { maxMs: 250, belowRows: 1_000 },
  );
  let consumer: { stop(): Promise<void> } | null = null;
  let sink: TelemetrySink;
  /** Opened once the running chains are loaded: the Kafka writer runs no batch through them before. */
  let chainsLoaded = () => undefined as void;
  const chainsReady = new Promise<void>((resolve) => (chainsLoaded = resolve));
  if (options.kafka) {
    // Kafka: acknowledged once Kafka has the rows; the writer inserts each consumed batch alone, with its token.
    sink = busTelemetrySink(options.kafka);
    consumer = await startTimeseriesWriter({
      bus: options.kafka,
      timeseries,
      chains: chains ? { observeBatch: (rows, sizes, id) => chains.observeBatch(rows, sizes, id), ready: chainsReady } : null,
      onMalformed: (message, err) =>
        logger.error({ err, partition: message.partition, offset: message.offset }, 'telemetry message skipped'),
    });
  } else {
    sink = journal
      ? { write: (rows, key) => batcher.enqueue(rows, key), holds: (key, dup) => journal.holds(key, dup) }
      : { write: (rows) => batcher.enqueue(rows) };
  }
  const registry = createDeviceRegistry(options.directory);
  const downlink = createDownlink({
    dispatch: options.dispatch,
    registry,
    intake: () => intake,
    logger,
    live: options.live,
    publish: options.publish,
    publishTo: options.publishTo,
    watch: options.watch,
    ownsSessions: options.ownsSessions,
  });
  const intake = createIntake({
    // ThingsBoard's client-side RPC and attribute requests: answered to the asking session, so on the embedded broker.
    thingsboard: options.thingsboard?.(registry),
    onConnect: (device) => downlink.resendLater(device, 1_000),
    onSubscribe: (device) => downlink.resendLater(device, 100),
    onPassthrough: downlink.onPassthrough,
    firmware:
      options.firmware && options.publishTo ? createFirmwareChunks({ ...options.firmware, publishTo: options.publishTo }) : undefined,
    onOtaProgress: createOtaReporter(options.dispatch, (err) => logger.error({ err }, 'OTA progress not recorded')),
    onDisconnect: downlink.onDisconnect,
    registry,
    sink,
    presence,
    deadLetters: (letter) => tables.deadLetter(letter),
    onReport: (device, at) => tables.report(device.deviceId, device.tenantId, at),
    onReply: downlink.onReply,
    onEvent: (device, identifier, payload, ts) => {
      chains?.observeEvent(device, identifier, payload, ts);
      for (const reactor of options.reactors ?? []) reactor.observeEvent(device, identifier, payload, ts);
    },
    onStored: (device, rows) => {
      for (const reactor of options.reactors ?? []) reactor.observe(device, rows);
      const live = options.live;
      if (!live?.listening('telemetry.live')) return;
      for (const r of rows) {
        live.publish(
          'telemetry.live',
          { tenantId: r.tenantId, groupId: device.groupId, deviceId: r.deviceId },
          { deviceId: r.deviceId, variable: r.variable, ts: r.ts.toISOString(), value: r.value, text: r.text },
        );
      }
    },
  });
  const follow = followDeviceChanges({ registry, intake, presence, disconnect: options.disconnect, logger });
  const changes = options.events
    ? options.events.subscribe({
        after: await options.events.headPosition(),
        categories: ['device', 'tenant'],
        types: followedDeviceChanges,
        onEvents: async (events) => {
          for (const event of events) await follow(event as StoredEventOf<DeviceEvent | TenantEvent>);
        },
        onError: (err) => logger.error({ err }, 'device changes not followed'),
      })
    : null;
  // Pass-through (DTU-style devices): an operator's bytes go to the device's own connection here, or fail at once.
  options.live?.onInbound?.('device.passthrough', downlink.relay);
  /**
   * Devices recorded online when the previous process stopped: offline unless they come back within the delay. The
   * read model says who is online, so the wiring calls this once it reflects the log (the projections caught up).
   */
  const reconcilePresence = async () => {
    if (!options.ownsSessions) return;
    await registry.recordedOnline().then(
      (online) => presence.reconcile(online),
      (err: unknown) => logger.error({ err }, 'presence not reconciled'),
    );
  };
  // Over an external broker: devices no process heard from for the heartbeat time-out go offline.
  const stopSweep = options.ownsSessions ? null : sweepSilentDevices({ registry, presence, logger });
  return {
    intake,
    link: downlink.link,
    registry,
    presence,
    tables,
    reconcilePresence,
    /** The running chains are loaded: stored messages may go through them. */
    chainsLoaded: () => chainsLoaded(),
    flush: async () => {
      await batcher.flush();
      await tables.flush();
    },
    async stop() {
      stopSweep?.();
      await changes?.stop();
      downlink.stop();
      presence.stop();
      // A batch held for chains that never loaded (a start that failed) lets the consumer stop.
      chainsLoaded();
      await consumer?.stop();
      await batcher.flush();
      await tables.stop();
    },
  };
}
export type Ingest = Awaited<ReturnType<typeof startIngest>>;
