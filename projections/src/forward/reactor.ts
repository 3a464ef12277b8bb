import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { TelemetryRow } from '@iot/contracts/ports/timeseries.ts';
import { enabledForwardRules, type ForwardRuleRecord } from './read.ts';
import { renderPayload, renderTopic, type ForwardMessage } from './messages.ts';

interface DeviceOf {
  deviceId: string;
  tenantId: string;
  productId: string;
}
interface OutboxRow {
  tenantId: string;
  ruleId: string;
  serverId: string;
  deviceId: string;
  topic: string | null;
  payload: string;
}

/** How long messages gather before they are written to the outbox in one statement, and how many at most. */
const FLUSH_MS = 20;
const FLUSH_ROWS = 1_000;

/**
 * The forwarding rules on the telemetry as it is stored: each message of a product's device that a rule takes is
 * written to the outbox (one row per rule), in the order the device sent it; the delivery worker sends it on.
 */
export function createForwardReactor(options: { db: Sql; onError(error: unknown): void; onEnqueued?(): void }) {
  const { db } = options;
  let byProduct = new Map<string, ForwardRuleRecord[]>();
  let buffer: OutboxRow[] = [];
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> = Promise.resolve();

  function write() {
    if (timer) clearTimeout(timer);
    timer = null;
    if (buffer.length === 0) return writing;
    const rows = buffer;
    buffer = [];
    // One writer at a time: the outbox ids follow the order messages arrived in.
    writing = writing.then(async () => {
      try {
        await db.query(
          `insert into forward_outbox (tenant_id, rule_id, server_id, device_id, topic, payload)
           select t, r, s, d, tp, p from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
             with ordinality as m(t, r, s, d, tp, p, n) order by n`,
          [
            rows.map((r) => r.tenantId),
            rows.map((r) => r.ruleId),
            rows.map((r) => r.serverId),
            rows.map((r) => r.deviceId),
            rows.map((r) => r.topic),
            rows.map((r) => r.payload),
          ],
        );
        options.onEnqueued?.();
      } catch (error) {
        options.onError(error);
      }
    });
    return writing;
  }

  function enqueue(device: DeviceOf, message: ForwardMessage) {
    for (const rule of byProduct.get(device.productId) ?? []) {
      if (rule.tenantId !== device.tenantId || !rule.messageTypes.includes(message.type)) continue;
      if (rule.deviceIds.length > 0 && !rule.deviceIds.includes(device.deviceId)) continue;
      buffer.push({
        tenantId: device.tenantId,
        ruleId: rule.id,
        serverId: rule.serverId,
        deviceId: device.deviceId,
        topic: rule.serverType === 'mqtt' ? renderTopic(rule.topic, message) : null,
        payload: renderPayload(rule.payloadTemplate, message),
      });
    }
    if (buffer.length >= FLUSH_ROWS) void write();
    else timer ??= setTimeout(() => void write(), FLUSH_MS);
  }

  return {
    /** Reads the enabled rules again (at start, after rule changes, and now and then for rules other processes saved). */
    async load() {
      const next = new Map<string, ForwardRuleRecord[]>();
      for (const rule of await enabledForwardRules(db))
        for (const productId of rule.productIds) next.set(productId, [...(next.get(productId) ?? []), rule]);
      byProduct = next;
    },
    observe(device: DeviceOf, rows: readonly TelemetryRow[]) {
      if (!byProduct.has(device.productId)) return;
      const byTs = new Map<number, Record<string, number | string | null>>();
      for (const row of rows) {
        const values = byTs.get(row.ts.getTime()) ?? {};
        values[row.variable] = row.value ?? row.text;
        byTs.set(row.ts.getTime(), values);
      }
      for (const [ts, values] of byTs)
        enqueue(device, { deviceId: device.deviceId, productId: device.productId, type: 'telemetry', ts: new Date(ts), values });
    },
    observeEvent(device: DeviceOf, identifier: string, payload: unknown, ts: Date) {
      if (!byProduct.has(device.productId)) return;
      enqueue(device, { deviceId: device.deviceId, productId: device.productId, type: 'event', ts, identifier, payload });
    },
    /** Writes what is gathered now: resolves once it is in the outbox. */
    flush: () => write(),
  };
}
export type ForwardReactor = ReturnType<typeof createForwardReactor>;
