import type { Logger } from 'pino';
import type { Dispatch } from '@iot/contracts/ports/dispatch.ts';
import type { LiveFeed } from '@iot/contracts/ports/live.ts';
import type { TelemetryRow, TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import { commandTopic, createDeviceRegistry, createIntake, createIntakeTables, createPresence, type TelemetrySink } from '@iot/ingest';
import type { DeviceLinkPort, DeviceReply } from '@iot/contracts/ports/device-link.ts';
import type { Bus } from './bus/port.ts';
import type { SqlPool } from './postgres/sql.ts';
import { WriteBatcher } from './timeseries/batcher.ts';

/** Telemetry rows on the bus: compact arrays, one message per device per publish. */
const TELEMETRY_TOPIC = 'telemetry';
type WireRow = [
  tenantId: string,
  deviceId: string,
  productId: string,
  variable: string,
  ts: number,
  value: number | null,
  text: string | null,
];
const toWire = (r: TelemetryRow): WireRow => [r.tenantId, r.deviceId, r.productId ?? '', r.variable, r.ts.getTime(), r.value, r.text];
const fromWire = ([tenantId, deviceId, productId, variable, ts, value, text]: WireRow): TelemetryRow => ({
  tenantId,
  deviceId,
  productId,
  variable,
  ts: new Date(ts),
  value,
  text,
});

export interface IngestOptions {
  db: SqlPool;
  timeseries: TimeSeriesStore;
  dispatch: Dispatch;
  logger: Logger;
  /** Kafka between the intake and the writer: a publish is durable once Kafka has it. Absent: straight to the store. */
  kafka?: Bus | null;
  offlineAfterMs?: number;
  /** The reactors on the telemetry (alarm rules): told of every stored sample and reported event. */
  reactors?: {
    observe(device: { deviceId: string; tenantId: string; productId: string }, rows: readonly TelemetryRow[]): void;
    observeEvent(device: { deviceId: string; tenantId: string; productId: string }, identifier: string, payload: unknown, ts: Date): void;
  }[];
  live?: LiveFeed;
  /** The broker's downlink: commands go out on it. */
  publish?: (topic: string, payload: object) => Promise<void>;
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
    onError: (err) => logger.error({ err }, 'presence not recorded'),
  });
  const batcher = new WriteBatcher<TelemetryRow>((rows) => timeseries.insertTelemetry(rows), 100_000);
  let consumer: { stop(): Promise<void> } | null = null;
  let sink: TelemetrySink;
  if (options.kafka) {
    const bus = options.kafka;
    sink = {
      async write(rows) {
        const byDevice = new Map<string, WireRow[]>();
        for (const r of rows) byDevice.set(r.deviceId, [...(byDevice.get(r.deviceId) ?? []), toWire(r)]);
        await bus.publish(
          TELEMETRY_TOPIC,
          [...byDevice].map(([key, value]) => ({ key, value })),
        );
      },
    };
    consumer = await bus.subscribe({
      topic: TELEMETRY_TOPIC,
      group: 'timeseries-writer',
      fromBeginning: true,
      onMessages: async (batch) => {
        const rows = batch.flatMap((m) => (JSON.parse(m.value.toString('utf8')) as WireRow[]).map(fromWire));
        await batcher.enqueue(rows);
      },
    });
  } else {
    sink = { write: (rows) => batcher.enqueue(rows) };
  }
  const registry = createDeviceRegistry(db);
  /** Synchronous commands waiting for their reply, by message id. */
  const waiting = new Map<string, (reply: DeviceReply) => void>();
  /** Desired values go out again once a device is back: soon after it subscribes to its downlink, or a second after it connects. */
  const resendTimers = new Map<string, NodeJS.Timeout>();
  const resendLater = (device: { deviceId: string; tenantId: string }, ms: number) => {
    clearTimeout(resendTimers.get(device.deviceId));
    const timer = setTimeout(() => {
      resendTimers.delete(device.deviceId);
      const key = `desired:${device.deviceId}:${Date.now()}`;
      void options
        .dispatch(
          { type: 'ResendDesired', deviceId: device.deviceId },
          {
            tenantId: device.tenantId,
            actor: { kind: 'system', id: 'desired-state' },
            correlationId: key,
            causationId: null,
            idempotencyKey: key,
          },
        )
        .catch((err: unknown) => logger.error({ err }, 'desired values not re-sent'));
    }, ms);
    timer.unref();
    resendTimers.set(device.deviceId, timer);
  };
  const intake = createIntake({
    onConnect: (device) => resendLater(device, 1_000),
    onSubscribe: (device) => resendLater(device, 100),
    registry,
    sink,
    presence,
    deadLetters: (letter) => tables.deadLetter(letter),
    onReport: (device, at) => tables.report(device.deviceId, device.tenantId, at),
    onReply: (device, messageId, output) => {
      const resolve = waiting.get(messageId);
      if (resolve) return resolve({ ok: true, output });
      // Nobody waits (an asynchronous command, or a late reply): recorded on the device's stream all the same.
      void options
        .dispatch(
          { type: 'RecordDeviceReply', deviceId: device.deviceId, messageId: messageId.slice(0, 64), output },
          {
            tenantId: device.tenantId,
            actor: { kind: 'device', id: device.deviceId },
            correlationId: messageId.slice(0, 64),
            causationId: null,
            idempotencyKey: `reply:${messageId.slice(0, 64)}`,
          },
        )
        .catch((err: unknown) => logger.error({ err }, 'device reply not recorded'));
    },
    onEvent: (device, identifier, payload, ts) => {
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
  const isConnected = (deviceId: string) => [...intake.sessions.values()].some((s) => s.device.deviceId === deviceId);
  const link: DeviceLinkPort = {
    isConnected,
    async send(device, message, waitMs) {
      const connected = isConnected(device.deviceId);
      if (waitMs !== null && !connected) return { ok: false, reason: 'offline' };
      if (!options.publish) return { ok: false, reason: 'offline' };
      const reply =
        waitMs === null
          ? null
          : new Promise<DeviceReply>((resolve) => {
              const timer = setTimeout(() => {
                waiting.delete(message.messageId);
                resolve({ ok: false, reason: 'timeout' });
              }, waitMs);
              waiting.set(message.messageId, (r) => {
                clearTimeout(timer);
                waiting.delete(message.messageId);
                resolve(r);
              });
            });
      await options.publish(commandTopic(device.sn, message.messageId), message);
      return reply;
    },
  };
  return {
    intake,
    link,
    registry,
    presence,
    tables,
    flush: async () => {
      await batcher.flush();
      await tables.flush();
    },
    async stop() {
      for (const timer of resendTimers.values()) clearTimeout(timer);
      presence.stop();
      await consumer?.stop();
      await batcher.flush();
      await tables.stop();
    },
  };
}
export type Ingest = Awaited<ReturnType<typeof startIngest>>;
