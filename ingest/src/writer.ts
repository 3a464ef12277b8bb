import type { TelemetryRow, TimeSeriesStore } from '@iot/contracts/ports/timeseries.ts';
import type { Bus, BusMessage, Subscription } from '@iot/contracts/ports/bus.ts';
import { textOf } from './payload.ts';

/**
 * Telemetry through the bus (issue 11, `KAFKA_BROKERS`): the intake publishes accepted rows, keyed by device so
 * that a device's samples stay in order on one partition, and the `timeseries-writer` group inserts them.
 * A QoS 1 message is acknowledged once the bus has its rows; the writer's position moves only after the insert,
 * and each insert carries a deduplication token naming its batch, so a batch delivered again after a crash
 * (the bus repeats its boundaries) stores nothing twice.
 */
export const TELEMETRY_TOPIC = 'telemetry';
export const TIMESERIES_WRITER_GROUP = 'timeseries-writer';

/** A row on the wire: a compact array, one message per device per publish. */
type WireRow = [
  tenantId: string,
  deviceId: string,
  productId: string,
  variable: string,
  ts: number,
  value: number | null,
  text: string | null,
  /** Absent on rows written before it was carried: kept for ever. */
  retentionDays?: number,
];
const toWire = (r: TelemetryRow): WireRow =>
  r.retentionDays
    ? [r.tenantId, r.deviceId, r.productId ?? '', r.variable, r.ts.getTime(), r.value, r.text, r.retentionDays]
    : [r.tenantId, r.deviceId, r.productId ?? '', r.variable, r.ts.getTime(), r.value, r.text];
const fromWire = ([tenantId, deviceId, productId, variable, ts, value, text, retentionDays]: WireRow): TelemetryRow => ({
  tenantId,
  deviceId,
  productId,
  variable,
  ts: new Date(ts),
  value,
  text,
  ...(retentionDays ? { retentionDays } : {}),
});

/** The intake's sink: resolves once the bus has accepted every row (Kafka: acknowledged by the broker). */
export function busTelemetrySink(bus: Bus, topic: string = TELEMETRY_TOPIC): { write(rows: TelemetryRow[]): Promise<void> } {
  return {
    async write(rows) {
      const byDevice = new Map<string, WireRow[]>();
      for (const r of rows) {
        const own = byDevice.get(r.deviceId);
        if (own) own.push(toWire(r));
        else byDevice.set(r.deviceId, [toWire(r)]);
      }
      await bus.publish(
        topic,
        [...byDevice].map(([key, value]) => ({ key, value })),
      );
    },
  };
}

/**
 * Names a batch by where it came from, so that the same batch delivered again gets the same token. The first
 * message's timestamp (kept in the log) tells a topic made again, whose offsets start over, from the old one.
 */
export const dedupTokenOf = (batch: readonly BusMessage[]): string => {
  const first = batch[0]!;
  return `${first.topic}:${first.partition}:${first.offset}-${batch[batch.length - 1]!.offset}:${first.timestamp.getTime()}`;
};

/** Names one message by where it is in the log, the same each time it is delivered, whatever batch it comes in. */
const messageTokenOf = (message: BusMessage): string =>
  `${message.topic}:${message.partition}:${message.offset}:${message.timestamp.getTime()}`;

/** Each message's rows (one device's, of one publish), the malformed ones skipped. */
function messagesOf(batch: readonly BusMessage[], onMalformed: (message: BusMessage, error: unknown) => void) {
  const messages: Array<{ message: BusMessage; rows: TelemetryRow[] }> = [];
  for (const message of batch) {
    try {
      messages.push({ message, rows: (JSON.parse(textOf(message.value)) as WireRow[]).map(fromWire) });
    } catch (error) {
      // Not ours (only the intake publishes here): skipped, since delivering it again cannot mend it.
      onMalformed(message, error);
    }
  }
  return messages;
}

export function rowsOf(batch: readonly BusMessage[], onMalformed: (message: BusMessage, error: unknown) => void): TelemetryRow[] {
  return messagesOf(batch, onMalformed).flatMap((m) => m.rows);
}

/**
 * The writer: one insert per batch the bus delivers (one partition's consecutive messages), never merged with
 * other batches, so that its token is the same when it is delivered again. While an insert is in flight the
 * partition's consumer waits: a store that falls behind leaves messages in Kafka instead of in memory.
 */
export function startTimeseriesWriter(options: {
  bus: Bus;
  timeseries: TimeSeriesStore;
  onMalformed?: (message: BusMessage, error: unknown) => void;
  /** After each batch is stored, before the bus moves its position (a fault-injection point for crash tests). */
  afterInsert?: (batch: readonly BusMessage[]) => void;
  /** Another topic than the platform's (a benchmark's). */
  topic?: string;
  /**
   * The rule chains (issue 19): each stored message enters them under an id named by its place in the log, and the
   * bus moves its position only once they ran the batch, so a crash runs it again under the same ids (at least once;
   * the nodes drop a repeat by message id). `ready` holds the first run until the running chains are loaded.
   */
  chains?: {
    observeBatch(rows: readonly TelemetryRow[], sizes: readonly number[], batchId: string | null): Promise<void>;
    ready: Promise<void>;
  } | null;
}): Promise<Subscription> {
  const { bus, timeseries, chains } = options;
  return bus.subscribe({
    topic: options.topic ?? TELEMETRY_TOPIC,
    group: TIMESERIES_WRITER_GROUP,
    fromBeginning: true,
    onMessages: async (batch) => {
      const messages = messagesOf(batch, options.onMalformed ?? (() => undefined));
      const rows = messages.flatMap((m) => m.rows);
      if (rows.length > 0) await timeseries.insertTelemetry(rows, { dedupToken: dedupTokenOf(batch) });
      options.afterInsert?.(batch);
      if (chains && rows.length > 0) {
        await chains.ready;
        await Promise.all(
          messages.map(({ message, rows: own }) =>
            own.length === 0 ? undefined : chains.observeBatch(own, [own.length], messageTokenOf(message)),
          ),
        );
      }
    },
  });
}
