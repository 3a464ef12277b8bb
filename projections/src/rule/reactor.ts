import { randomUUID } from 'node:crypto';
import {
  ROOT_CHAIN_ID,
  type AlarmEvent,
  type DeviceEvent,
  type ProductEvent,
  type RuleChainDefinition,
  type RuleChainEvent,
  type RuleMessage,
} from '@iot/contracts';
import type { StoredEventOf } from '@iot/contracts/ports/event-store.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { TelemetryRow } from '@iot/contracts/ports/timeseries.ts';
import { chainVersionOf, nodeDebugSwitches } from './read.ts';
import { runChain, type NodeTrace, type RuleEnginePorts, type RuleFailure } from './engine.ts';

interface DeviceOf {
  deviceId: string;
  tenantId: string;
  productId: string;
}

/** Presence changes and alarms older than this when they are read (a log replayed from its start) enter no chain. */
const STALE_MS = 5 * 60_000;

/**
 * Messages running through chains at once. Past it a stored batch's writer waits for room (back-pressure on the
 * intake: a batch is never dropped, its chain position is durable); a lone message (the Kafka path) is counted as
 * dropped rather than queued without end.
 */
const MAX_IN_FLIGHT = 2_000;

const telemetryMessage = (id: string, device: DeviceOf, ts: Date, data: Record<string, unknown>): RuleMessage => ({
  id,
  type: 'telemetry',
  tenantId: device.tenantId,
  deviceId: device.deviceId,
  productId: device.productId,
  ts: ts.toISOString(),
  data,
  metadata: {},
});

/**
 * A chain that only stores (the default root chain: one Warehousing node) does what the intake already did:
 * a tenant whose root chain is such a chain costs nothing per message.
 */
const onlyStores = (chain: RuleChainDefinition) => chain.nodes.every((n) => n.kind === 'warehousing');

/** How long enrich nodes reuse a device's or product's fields before reading them again: changes heard from the log drop them at once. */
const LOOKUP_TTL_MS = 5_000;
/** Entries kept at most per look-up; past it they are all dropped and read again. */
const LOOKUP_MAX = 100_000;

type Found = Readonly<Record<string, unknown>> | null;

/**
 * A look-up by tenant and id, read once per TTL and shared (frozen) by the messages that ask meanwhile. An answer past
 * its TTL still serves while the read that renews it runs: a message waits only for what was never read or was forgotten.
 */
function cachedLookup(read: (tenantId: string, id: string) => Found | Promise<Found>, now: () => number) {
  type Entry = { at: number; value: Promise<Found>; settled: boolean; found: Found };
  // By tenant, then id: a message's look-up builds no key string.
  const tenants = new Map<string, Map<string, Entry>>();
  let size = 0;
  const answer = (entry: Entry) => (entry.settled ? entry.found : entry.value);
  const remove = (tenantId: string, id: string, only?: Entry) => {
    const entries = tenants.get(tenantId);
    const entry = entries?.get(id);
    if (!entry || (only && entry !== only)) return false;
    entries!.delete(id);
    size--;
    return true;
  };
  function fetch(tenantId: string, id: string) {
    const entry: Entry = {
      at: now(),
      value: Promise.resolve(read(tenantId, id)).then((found): Found => (found ? Object.freeze(found) : null)),
      settled: false,
      found: null,
    };
    entry.value.then(
      (found) => {
        entry.found = found;
        entry.settled = true;
      },
      // A failed read is not kept: the next message asks again.
      () => remove(tenantId, id, entry),
    );
    return entry;
  }
  return {
    /** The fields, without a promise once they were read (most messages): a message waits only for a first read. */
    get(tenantId: string, id: string): Found | Promise<Found> {
      let entries = tenants.get(tenantId);
      const hit = entries?.get(id);
      if (hit && (now() - hit.at < LOOKUP_TTL_MS || !hit.settled)) return answer(hit);
      if (!hit && size >= LOOKUP_MAX) {
        tenants.clear();
        size = 0;
        entries = undefined;
      }
      const entry = fetch(tenantId, id);
      if (!hit) {
        if (!entries) tenants.set(tenantId, (entries = new Map()));
        entries.set(id, entry);
        size++;
        return entry.value;
      }
      // Renewed in the background: the old answer serves until the new one is in.
      hit.at = entry.at;
      entry.value.then(
        () => tenants.get(tenantId)?.get(id) === hit && tenants.get(tenantId)!.set(id, entry),
        () => undefined,
      );
      return answer(hit);
    },
    forget: (tenantId: string, id: string) => remove(tenantId, id),
  };
}

/**
 * The root chains on the live telemetry: every stored sample and reported event of a device enters its tenant's
 * root chain (its running version, switched without a restart as the chain's events arrive). A node's failure is
 * handed to `onFailure` and never reaches the intake.
 */
export function createRuleChainReactor(options: {
  db: Sql;
  ports: Omit<RuleEnginePorts, 'chain'>;
  onFailure(failure: RuleFailure): void;
  /** A node's trace, for the nodes whose debug traces are on (within their time and sample rate). */
  onTrace?(tenantId: string, trace: NodeTrace): void;
  /** A chain of the tenant ran a message now (the root chain on every message, called chains when called): its "last triggered". */
  onRun?(tenantId: string, chainId: string): void;
  onError(error: unknown): void;
  maxInFlight?: number;
  now?: () => number;
  random?: () => number;
}) {
  const { db } = options;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  /** Nodes whose debug traces are on, by `tenant\0chain\0node`: until when (ms) and the share of messages. */
  const debug = new Map<string, { until: number; sampleRate: number }>();
  const debugKey = (tenantId: string, chainId: string, nodeId: string) => `${tenantId}\0${chainId}\0${nodeId}`;
  /** Only the nodes whose debug traces are on are traced (a failure always is, for its capture). */
  const wanted = (tenantId: string) => (chainId: string, nodeId: string) => debug.has(debugKey(tenantId, chainId, nodeId));
  const none = () => false;
  function traced(tenantId: string, traces: readonly NodeTrace[]) {
    if (debug.size === 0 || !options.onTrace) return;
    const at = now();
    for (const trace of traces) {
      const key = debugKey(tenantId, trace.chainId, trace.nodeId);
      const on = debug.get(key);
      if (!on) continue;
      if (on.until <= at) debug.delete(key);
      else if (random() < on.sampleRate) options.onTrace(tenantId, trace);
    }
  }
  const maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT;
  /** Each tenant's running root chain, for the tenants whose root chain does more than store. */
  const roots = new Map<string, RuleChainDefinition>();
  /** Chains that rule-chain nodes call, by `tenant\0chain`: their running version, forgotten when they change. */
  const called = new Map<string, Promise<RuleChainDefinition | null>>();
  /** The root chains' versions seen in events: a switch to one finds it here even before the read model has it. */
  const rootVersions = new Map<string, Map<number, RuleChainDefinition>>();
  const remember = (tenantId: string, version: number, chain: RuleChainDefinition) => {
    const versions = rootVersions.get(tenantId) ?? new Map<number, RuleChainDefinition>();
    versions.set(version, chain);
    rootVersions.set(tenantId, versions);
  };
  const devices = cachedLookup(options.ports.lookups.device, now);
  const products = cachedLookup(options.ports.lookups.product, now);
  let inFlight = 0;
  let dropped = 0;
  let done = 0;
  /** Times a stored batch's writer waited for room: the chains holding the intake back. */
  let held = 0;
  const idle: Array<() => void> = [];
  /** Writers waiting for the in-flight messages to fall below the bound. */
  const waiting: Array<() => void> = [];

  const ports: RuleEnginePorts = {
    ...options.ports,
    lookups: { ...options.ports.lookups, device: devices.get, product: products.get },
    chain(tenantId, chainId) {
      const key = `${tenantId}\0${chainId}`;
      let found = called.get(key);
      if (!found) {
        found = chainVersionOf(db, tenantId, chainId).then((v) => v?.chain ?? null);
        called.set(key, found);
        found.catch(() => called.delete(key));
      }
      return found;
    },
  };

  function setRoot(tenantId: string, chain: RuleChainDefinition | null) {
    if (chain && !onlyStores(chain)) roots.set(tenantId, chain);
    else roots.delete(tenantId);
  }

  function settled() {
    inFlight--;
    done++;
    if (inFlight < maxInFlight && waiting.length > 0) waiting.splice(0).forEach((resolve) => resolve());
    if (inFlight === 0 && idle.length > 0) idle.splice(0).forEach((resolve) => resolve());
  }
  /** One message through the tenant's root chain: settles once it went all the way (never rejects). */
  function run(message: RuleMessage, chain: RuleChainDefinition): Promise<void> {
    inFlight++;
    return runChain(ports, ROOT_CHAIN_ID, chain, message, { trace: debug.size === 0 ? none : wanted(message.tenantId) }).then(
      (result) => {
        try {
          if (options.onRun) for (const chainId of result.chains) options.onRun(message.tenantId, chainId);
          for (const failure of result.failures) options.onFailure(failure);
          traced(message.tenantId, result.traces);
        } finally {
          settled();
        }
      },
      (error: unknown) => {
        options.onError(error);
        settled();
      },
    );
  }
  /** A lone message: dropped (and counted) past the bound. */
  function runOne(message: RuleMessage, chain: RuleChainDefinition) {
    if (inFlight >= maxInFlight) {
      dropped++;
      return;
    }
    void run(message, chain);
  }

  return {
    /** Reads every tenant's running root chain. */
    async load() {
      const rows = await db.query<{ tenantId: string }>(`select distinct tenant_id as "tenantId" from rm_rule_chains where id = $1`, [
        ROOT_CHAIN_ID,
      ]);
      for (const { tenantId } of rows.rows) setRoot(tenantId, (await chainVersionOf(db, tenantId, ROOT_CHAIN_ID))?.chain ?? null);
      called.clear();
      debug.clear();
      for (const d of await nodeDebugSwitches(db, null))
        debug.set(debugKey(d.tenantId, d.chainId, d.nodeId), { until: d.until.getTime(), sampleRate: d.sampleRate });
    },

    /** A chain saved or switched: the next message goes through the version that runs now. */
    async onEvent(event: StoredEventOf<RuleChainEvent>) {
      const { tenantId } = event.metadata;
      const { chainId } = event.data;
      if (event.type === 'RuleNodeDebugSet') {
        const { nodeId, until, sampleRate } = event.data;
        if (until) debug.set(debugKey(tenantId, chainId, nodeId), { until: Date.parse(until), sampleRate });
        else debug.delete(debugKey(tenantId, chainId, nodeId));
        return;
      }
      called.delete(`${tenantId}\0${chainId}`);
      if (chainId !== ROOT_CHAIN_ID) return;
      switch (event.type) {
        case 'RuleChainCreated':
          remember(tenantId, 1, event.data.chain);
          return setRoot(tenantId, event.data.chain);
        case 'RuleChainSaved':
          remember(tenantId, event.data.version, event.data.chain);
          if (event.data.run) setRoot(tenantId, event.data.chain);
          return;
        case 'RuleChainVersionSwitched': {
          const { version } = event.data;
          const chain = rootVersions.get(tenantId)?.get(version) ?? (await chainVersionOf(db, tenantId, chainId, version))?.chain;
          // A version neither seen nor stored yet: the running chain stays until it is (never the default by mistake).
          if (chain) setRoot(tenantId, chain);
          return;
        }
        case 'RuleChainDeleted':
          rootVersions.delete(tenantId);
          return setRoot(tenantId, null);
      }
    },

    /** Stored samples of one device: one telemetry message, its values by variable (a lone message, dropped past the bound). */
    observe(device: DeviceOf, rows: readonly TelemetryRow[]) {
      if (rows.length === 0) return;
      // A root chain that only stores is run by the intake's own storing: triggered all the same.
      options.onRun?.(device.tenantId, ROOT_CHAIN_ID);
      const chain = roots.get(device.tenantId);
      if (!chain) return;
      const data: Record<string, unknown> = {};
      for (const row of rows) data[row.variable] = row.value ?? row.text;
      runOne(telemetryMessage(randomUUID(), device, rows[0]!.ts, data), chain);
    },

    /**
     * A batch as it was stored, `sizes` its messages' rows in order: each device's rows of a message are a telemetry
     * message (as `observe` sees them). Settles once every message of the batch went through its chain. `batchId`
     * names the batch durably (the telemetry journal's token): message `n` of it is `<batchId>.<n>` in every run, so a
     * batch run again after a crash acts once where its nodes are idempotent by message (alarms, commands,
     * notifications, the forwarding outbox).
     */
    observeBatch(rows: readonly TelemetryRow[], sizes: readonly number[], batchId: string | null): Promise<void> {
      const runs: Promise<void>[] = [];
      let n = 0;
      let lastTenant = '';
      const enter = (own: readonly TelemetryRow[]) => {
        const first = own[0]!;
        const id = batchId === null ? randomUUID() : `${batchId}.${n}`;
        n++;
        if (first.tenantId !== lastTenant) options.onRun?.(first.tenantId, ROOT_CHAIN_ID);
        lastTenant = first.tenantId;
        const chain = roots.get(first.tenantId);
        if (!chain) return;
        const data: Record<string, unknown> = {};
        for (const row of own) data[row.variable] = row.value ?? row.text;
        const device = { tenantId: first.tenantId, deviceId: first.deviceId, productId: first.productId ?? '' };
        runs.push(run(telemetryMessage(id, device, first.ts, data), chain));
      };
      let at = 0;
      for (const size of sizes) {
        const message = rows.slice(at, at + size);
        at += size;
        if (message.length === 0) continue;
        // A gateway's message carries rows of several devices: one message each, as the intake hands them over.
        if (message.every((row) => row.deviceId === message[0]!.deviceId)) enter(message);
        else {
          const byDevice = new Map<string, TelemetryRow[]>();
          for (const row of message) byDevice.set(row.deviceId, [...(byDevice.get(row.deviceId) ?? []), row]);
          for (const own of byDevice.values()) enter(own);
        }
      }
      return runs.length === 0 ? Promise.resolve() : Promise.all(runs).then(() => undefined);
    },

    /** Resolves once fewer messages than the bound run: a writer that waits for it holds the intake back. */
    room(): Promise<void> {
      if (inFlight < maxInFlight) return Promise.resolve();
      held++;
      return new Promise<void>((resolve) => waiting.push(resolve));
    },

    /** A thing-model event a device reported. */
    observeEvent(device: DeviceOf, identifier: string, payload: unknown, ts: Date) {
      options.onRun?.(device.tenantId, ROOT_CHAIN_ID);
      const chain = roots.get(device.tenantId);
      if (!chain) return;
      runOne(
        {
          id: randomUUID(),
          type: 'event',
          tenantId: device.tenantId,
          deviceId: device.deviceId,
          productId: device.productId,
          ts: ts.toISOString(),
          data: { identifier, payload: payload ?? null },
          metadata: {},
        },
        chain,
      );
    },

    /** A device or product changed: enrich nodes read its fields again. */
    forget(event: StoredEventOf<DeviceEvent | ProductEvent>) {
      const { tenantId } = event.metadata;
      if ('deviceId' in event.data) devices.forget(tenantId, event.data.deviceId);
      else products.forget(tenantId, event.data.productId);
    },

    /** A device's presence change or an alarm raised, from the log: a `presence` or an `alarm` message of the device. */
    observeLog(event: StoredEventOf<DeviceEvent | AlarmEvent>, now = Date.now()) {
      const { tenantId, occurredAt } = event.metadata;
      // Its status is one of the fields an enrich node adds.
      if (event.type === 'DeviceWentOnline' || event.type === 'DeviceWentOffline') devices.forget(tenantId, event.data.deviceId);
      const chain = roots.get(tenantId);
      if (!chain || now - Date.parse(occurredAt) > STALE_MS) return;
      const message = (type: RuleMessage['type'], deviceId: string, ts: string, data: Record<string, unknown>): RuleMessage => ({
        id: event.id,
        type,
        tenantId,
        deviceId,
        productId: null,
        ts,
        data,
        metadata: {},
      });
      switch (event.type) {
        case 'DeviceWentOnline':
          return runOne(message('presence', event.data.deviceId, event.data.at, { online: true }), chain);
        case 'DeviceWentOffline':
          return runOne(message('presence', event.data.deviceId, event.data.at, { online: false, reason: event.data.reason }), chain);
        case 'AlarmRaised': {
          const { alarmId, deviceId, at, level, ruleId, ruleName, variable, value, text } = event.data;
          return runOne(message('alarm', deviceId, at, { alarmId, level, ruleId, ruleName, variable, value, text }), chain);
        }
        default:
          return;
      }
    },

    /** Resolves once no message is running through a chain (shutdown, tests). */
    drain: () => (inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve))),

    /** Messages run, dropped for want of room, running now, and the times a writer waited for room. */
    stats: () => ({ done, dropped, inFlight, held, activeTenants: roots.size }),
  };
}
export type RuleChainReactor = ReturnType<typeof createRuleChainReactor>;
