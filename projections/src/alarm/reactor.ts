import { type AlarmRuleEvent, type AlarmEvent } from '@iot/contracts';
import type { Dispatch } from '@iot/contracts/ports/dispatch.ts';
import type { StoredEventOf } from '@iot/contracts/ports/event-store.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { TelemetryRow } from '@iot/contracts/ports/timeseries.ts';
import { freshState, step, thresholdText, type Decision, type RuleSpec, type RuleState } from './evaluate.ts';

/**
 * Pending duration windows (a value beyond the threshold, its duration not yet reached), snapshotted so that a
 * restarted evaluator goes on counting from when the breach began instead of starting the window again.
 */
export const alarmRuleStatesSchema = `
create table alarm_rule_states (
  key text primary key,
  tenant_id text not null,
  breach_since timestamptz not null,
  samples int not null,
  updated_at timestamptz not null default now()
);`;

/** How long a changed window waits before it is written (changes in between are written once). */
const SNAPSHOT_MS = 1_000;

interface DeviceOf {
  deviceId: string;
  tenantId: string;
  productId: string;
}

/**
 * Alarm evaluation on the telemetry as it is stored (not by polling): each enabled rule keeps a state per
 * device; raises and clears go through the dispatch port, where a claim on (device, rule) lets only one
 * alarm be active. A restart rebuilds the active alarms from those claims, so none is lost or doubled.
 */
export function createAlarmReactor(options: { db: Sql; dispatch: Dispatch; onError(error: unknown): void; snapshotMs?: number }) {
  const { db, dispatch } = options;
  const snapshotMs = options.snapshotMs ?? SNAPSHOT_MS;
  const rules = new Map<string, RuleSpec>();
  /** Rules of a whole product, and rules of one device, each by variable: what one sample is checked against. */
  let byProduct = new Map<string, Map<string, RuleSpec[]>>();
  let byDevice = new Map<string, Map<string, RuleSpec[]>>();
  const states = new Map<string, RuleState>();
  const key = (deviceId: string, ruleId: string) => `${deviceId}:${ruleId}`;

  /** Rule changes mark the index stale; the next sample rebuilds it once (10,000 rules created need one rebuild, not 10,000). */
  let stale = false;
  function index() {
    stale = false;
    byProduct = new Map();
    byDevice = new Map();
    for (const rule of rules.values()) {
      if (rule.status !== 'enabled') continue;
      const target = rule.deviceId ? byDevice : byProduct;
      const owner = rule.deviceId ?? rule.productId;
      const variables = target.get(owner) ?? new Map<string, RuleSpec[]>();
      variables.set(rule.variable, [...(variables.get(rule.variable) ?? []), rule]);
      target.set(owner, variables);
    }
  }

  /** The enabled rules a sample of this device's variable meets: its product's and its own. */
  function rulesFor(device: DeviceOf, variable: string): RuleSpec[] {
    const forProduct = byProduct.get(device.productId)?.get(variable);
    const forDevice = byDevice.get(device.deviceId)?.get(variable);
    if (!forDevice) return forProduct ?? [];
    return forProduct ? [...forProduct, ...forDevice] : forDevice;
  }

  /** Windows changed since the last snapshot (only of rules with a duration: the others have no window to keep). */
  const dirty = new Map<string, string>();
  let flushTimer: ReturnType<typeof setTimeout> | null = null;
  let flushing: Promise<void> = Promise.resolve();
  let restored = false;
  const hasWindow = (rule: RuleSpec) => rule.durationSec > 0 || rule.durationSamples > 1;
  function touched(k: string, rule: RuleSpec, before: number | null, state: RuleState | null) {
    if (!hasWindow(rule) || (state && before === null && state.breachSince === null)) return;
    dirty.set(k, rule.tenantId);
    if (!flushTimer) {
      flushTimer = setTimeout(() => void flush(), snapshotMs);
      flushTimer.unref?.();
    }
  }
  /** Writes the changed windows: pending ones upserted, ended ones (cleared, or raised) deleted. */
  function flush(): Promise<void> {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = null;
    flushing = flushing.then(async () => {
      if (dirty.size === 0) return;
      const batch = [...dirty];
      dirty.clear();
      const pending = batch.filter(([k]) => {
        const state = states.get(k);
        return state && state.breachSince !== null && !state.activeAlarmId;
      });
      const ended = batch.filter(([k]) => !pending.some(([p]) => p === k)).map(([k]) => k);
      try {
        if (pending.length)
          await db.query(
            `insert into alarm_rule_states (key, tenant_id, breach_since, samples)
             select * from unnest($1::text[], $2::text[], $3::timestamptz[], $4::int[])
             on conflict (key) do update set breach_since = excluded.breach_since, samples = excluded.samples, updated_at = now()`,
            [
              pending.map(([k]) => k),
              pending.map(([, tenantId]) => tenantId),
              pending.map(([k]) => new Date(states.get(k)!.breachSince!).toISOString()),
              pending.map(([k]) => states.get(k)!.samples),
            ],
          );
        if (ended.length) await db.query('delete from alarm_rule_states where key = any($1)', [ended]);
      } catch (error) {
        for (const [k, tenantId] of batch) if (!dirty.has(k)) dirty.set(k, tenantId);
        options.onError(error);
      }
    });
    return flushing;
  }

  function stateOf(deviceId: string, ruleId: string) {
    let state = states.get(key(deviceId, ruleId));
    if (!state) states.set(key(deviceId, ruleId), (state = freshState()));
    return state;
  }

  function act(device: DeviceOf, rule: RuleSpec, state: RuleState, decision: Decision) {
    const at = new Date(decision.at).toISOString();
    const metadata = (what: string) => ({
      tenantId: device.tenantId,
      actor: { kind: 'system' as const, id: 'alarm-reactor' },
      correlationId: `${what}:${device.deviceId}:${rule.id}:${decision.at}`,
      causationId: null,
      idempotencyKey: `${what}:${device.deviceId}:${rule.id}:${decision.at}`,
    });
    state.busy = decision.kind !== 'repeat';
    const done = () => {
      state.busy = false;
    };
    let sent;
    switch (decision.kind) {
      case 'raise':
        sent = dispatch(
          {
            type: 'RaiseAlarm',
            alarm: {
              ruleId: rule.id,
              ruleName: rule.name,
              deviceId: device.deviceId,
              variable: rule.variable,
              type: rule.type,
              category: rule.category,
              mode: rule.mode,
              level: rule.level,
              trigger: rule.trigger,
              threshold: thresholdText(rule),
              value: decision.value,
              text: decision.text,
              at,
              faultFlag: rule.faultFlag,
              cause: rule.cause,
              suggestion: rule.suggestion,
              push: rule.push,
              pushIntervalMin: rule.pushIntervalMin,
              cameraId: rule.cameraId ?? null,
            },
          },
          metadata('raise'),
        ).then((result) => {
          state.activeAlarmId = result.id ?? null;
          // Raised: the window is over.
          touched(key(device.deviceId, rule.id), rule, null, null);
        });
        break;
      case 'repeat':
        sent = dispatch(
          { type: 'RepeatAlarm', alarmId: decision.alarmId, count: decision.count, value: decision.value, at },
          metadata('repeat'),
        );
        break;
      case 'clear':
        sent = dispatch({ type: 'ClearAlarm', alarmId: decision.alarmId, value: decision.value, at }, metadata('clear')).then(() => {
          state.activeAlarmId = null;
        });
        break;
    }
    void sent.then(done, (error: unknown) => {
      done();
      options.onError(error);
    });
  }

  return {
    /** Reads the enabled rules, and the active alarms from their claims. */
    async load() {
      const rows = await db.query<{ id: string; tenant_id: string; fields: RuleSpec }>('select id, tenant_id, fields from rm_alarm_rules');
      rules.clear();
      for (const r of rows.rows) rules.set(r.id, { ...r.fields, id: r.id, tenantId: r.tenant_id });
      index();
      const active = await db.query<{ key: string; owner: string }>(`select key, owner from claims where scope like 'alarm:active:%'`);
      const held = new Set<string>();
      for (const claim of active.rows) {
        held.add(claim.key);
        const state = states.get(claim.key);
        if (state) state.activeAlarmId ??= claim.owner;
        else states.set(claim.key, freshState(claim.owner));
      }
      // A claim released elsewhere (cleared by hand, or by another process): this device and rule may raise again.
      for (const [k, state] of states) if (!held.has(k) && !state.busy) state.activeAlarmId = null;
      if (!restored) {
        restored = true;
        // The duration windows pending when the last process stopped go on from when their breach began.
        const windows = await db.query<{ key: string; breach_since: Date; samples: number }>(
          'select key, breach_since, samples from alarm_rule_states',
        );
        for (const w of windows.rows) {
          const state = states.get(w.key) ?? freshState();
          if (state.activeAlarmId || state.breachSince !== null) continue;
          state.breachSince = w.breach_since.getTime();
          state.samples = w.samples;
          states.set(w.key, state);
        }
      }
    },

    /** Writes the pending duration windows now (at shutdown; otherwise within a second of a change). */
    flush,

    /** Rule changes and alarms cleared by hand, from the event log. */
    onEvent(event: StoredEventOf<AlarmRuleEvent | AlarmEvent>) {
      switch (event.type) {
        case 'AlarmRuleCreated':
        case 'AlarmRuleUpdated': {
          const { ruleId, ...fields } = event.data;
          rules.set(ruleId, { ...fields, id: ruleId, tenantId: event.metadata.tenantId });
          stale = true;
          return;
        }
        case 'AlarmRuleDeleted':
          rules.delete(event.data.ruleId);
          stale = true;
          return;
        case 'AlarmCleared':
          for (const [k, state] of states)
            if (state.activeAlarmId === event.data.alarmId) {
              Object.assign(state, freshState());
              const rule = rules.get(k.slice(k.indexOf(':') + 1));
              if (rule) touched(k, rule, null, null);
            }
          return;
        default:
          return;
      }
    },

    /** Stored samples of one device. */
    observe(device: DeviceOf, rows: readonly TelemetryRow[]) {
      if (stale) index();
      if (!byProduct.has(device.productId) && !byDevice.has(device.deviceId)) return;
      for (const row of rows) {
        for (const rule of rulesFor(device, row.variable)) {
          if (rule.tenantId !== device.tenantId || rule.mode === 'event' || (rule.deviceId && rule.productId !== device.productId))
            continue;
          const state = stateOf(device.deviceId, rule.id);
          const before = state.breachSince;
          const decision = step(rule, state, { value: row.value, text: row.text, ts: row.ts.getTime() });
          touched(key(device.deviceId, rule.id), rule, before, state);
          if (decision) act(device, rule, state, decision);
        }
      }
    },

    /** A thing-model event a device reported: rules in mode `event` on it raise. */
    observeEvent(device: DeviceOf, identifier: string, payload: unknown, ts: Date) {
      if (stale) index();
      for (const rule of rulesFor(device, identifier)) {
        if (rule.tenantId !== device.tenantId || rule.mode !== 'event') continue;
        const state = stateOf(device.deviceId, rule.id);
        const text = payload === undefined ? null : JSON.stringify(payload).slice(0, 512);
        const decision = step(rule, state, { value: null, text, ts: ts.getTime() });
        if (decision) act(device, rule, state, decision);
      }
    },

    /** How many (device, rule) states are kept, and rules indexed: the memory the rules cost. */
    size: () => ({ states: states.size, rules: rules.size }),
  };
}
export type AlarmReactor = ReturnType<typeof createAlarmReactor>;
