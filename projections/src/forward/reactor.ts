import type { ForwardRuleEvent } from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { StoredEventOf } from '@iot/contracts/ports/event-store.ts';
import type { TelemetryRow } from '@iot/contracts/ports/timeseries.ts';
import { projection } from '../projection.ts';
import { enabledForwardRules } from './read.ts';
import { renderPayload, renderTopic, type ForwardMessage } from './messages.ts';
import { insertOutboxRows, type OutboxItem } from './outbox.ts';

interface DeviceOf {
  deviceId: string;
  tenantId: string;
  productId: string;
}
/** What the reactor matches a message against. */
interface Rule {
  id: string;
  tenantId: string;
  productIds: string[];
  deviceIds: string[];
  messageTypes: string[];
  serverId: string;
  topic: string | null;
  payloadTemplate: string | null;
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
  let rules = new Map<string, Rule>();
  let byProduct = new Map<string, Rule[]>();
  function index() {
    byProduct = new Map();
    for (const rule of rules.values())
      for (const productId of rule.productIds) byProduct.set(productId, [...(byProduct.get(productId) ?? []), rule]);
  }
  let buffer: OutboxItem[] = [];
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
        await insertOutboxRows(db, rows);
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
        // An HTTP target ignores the topic: the reactor need not know the server's type.
        topic: renderTopic(rule.topic, message),
        payload: renderPayload(rule.payloadTemplate, message),
      });
    }
    if (buffer.length >= FLUSH_ROWS) void write();
    else timer ??= setTimeout(() => void write(), FLUSH_MS);
  }

  return {
    /** Reads the enabled rules again (at start, after rule changes, and now and then for rules other processes saved). */
    async load() {
      rules = new Map((await enabledForwardRules(db)).map((rule) => [rule.id, rule]));
      index();
    },
    /** Rule changes as the log hands them over, in this process at once (the periodic load covers the others). */
    hooks: projection<ForwardRuleEvent>({
      name: 'reactor-forward-rules',
      handles: ['ForwardRuleCreated', 'ForwardRuleUpdated', 'ForwardRuleDeleted'],
      schema: 'select 1',
      tables: [],
      async apply(_tx, event: StoredEventOf<ForwardRuleEvent>) {
        if (event.type === 'ForwardRuleDeleted' || event.data.status !== 'enabled') rules.delete(event.data.ruleId);
        else rules.set(event.data.ruleId, { ...event.data, id: event.data.ruleId, tenantId: event.metadata.tenantId });
        index();
      },
    }),
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
