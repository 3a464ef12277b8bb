import type { AlarmRuleFields, ComparisonOperator } from '@iot/contracts';

/** A rule as the evaluator needs it. */
export type RuleSpec = AlarmRuleFields & { id: string; tenantId: string };

/** What the evaluator remembers per (device, rule). */
export interface RuleState {
  /** The active alarm of this device and rule (the holder of its claim), if any. */
  activeAlarmId: string | null;
  /** A raise or clear was dispatched and has not answered yet: no second one meanwhile. */
  busy: boolean;
  /** When the current run of breaching samples began (device clock, ms), and how many samples it has. */
  breachSince: number | null;
  samples: number;
  /** Trigger `every`: breaching samples since the last repeat was recorded. */
  repeats: number;
  lastRepeatAt: number;
}
export const freshState = (activeAlarmId: string | null = null): RuleState => ({
  activeAlarmId,
  busy: false,
  breachSince: null,
  samples: 0,
  repeats: 0,
  lastRepeatAt: 0,
});

export type Decision =
  | { kind: 'raise'; value: number | null; text: string | null; at: number }
  | { kind: 'repeat'; alarmId: string; count: number; value: number | null; at: number }
  | { kind: 'clear'; alarmId: string; value: number | null; at: number };

export function compare(value: number, operator: ComparisonOperator, threshold: number): boolean {
  switch (operator) {
    case 'gt':
      return value > threshold;
    case 'gte':
      return value >= threshold;
    case 'eq':
      return value === threshold;
    case 'lt':
      return value < threshold;
    case 'lte':
      return value <= threshold;
  }
}

/** Moves a bound by the deadband towards the normal side: a value must come back this far to clear. */
const inward = (operator: ComparisonOperator, threshold: number, deadband: number) =>
  operator === 'gt' || operator === 'gte'
    ? threshold - deadband
    : operator === 'lt' || operator === 'lte'
      ? threshold + deadband
      : threshold;

/** Whether a value is beyond the rule's threshold(s); with `deadband`, the bounds moved inwards (for clearing). */
export function breaches(rule: RuleSpec, value: number, deadband = 0): boolean {
  const upper = rule.threshold ?? 0;
  switch (rule.mode) {
    case 'crossUpper':
    case 'crossLower':
    case 'equal':
      return compare(value, rule.operator, inward(rule.operator, upper, deadband));
    case 'crossBoth':
      return (
        compare(value, rule.operator, inward(rule.operator, upper, deadband)) ||
        compare(value, rule.lowOperator, inward(rule.lowOperator, rule.lowThreshold ?? 0, deadband))
      );
    case 'event':
      return true;
  }
}

/** Trigger `every` records repeated breaches at most this often, counted, so a fast signal does not flood the log. */
export const REPEAT_EVERY_MS = 10_000;

/**
 * One sample of the rule's variable: what to do about it. Raises once the value has stayed beyond the
 * threshold for `durationSec` and `durationSamples`; clears (when the rule clears itself) once the value is
 * back inside by `deadband`. Updates `state`; the caller dispatches the decision.
 */
export function step(rule: RuleSpec, state: RuleState, sample: { value: number | null; text: string | null; ts: number }): Decision | null {
  const { value, text, ts } = sample;
  if (rule.mode !== 'event' && value === null) return null;
  if (rule.mode === 'event' || breaches(rule, value!)) {
    if (state.breachSince === null) {
      state.breachSince = ts;
      state.samples = 0;
    }
    state.samples++;
    if (state.activeAlarmId) {
      if (rule.trigger !== 'every') return null;
      state.repeats++;
      if (ts - state.lastRepeatAt < REPEAT_EVERY_MS || state.busy) return null;
      const count = state.repeats;
      state.repeats = 0;
      state.lastRepeatAt = ts;
      return { kind: 'repeat', alarmId: state.activeAlarmId, count, value, at: ts };
    }
    if (state.busy) return null;
    if (state.samples < Math.max(1, rule.durationSamples) || ts - state.breachSince < rule.durationSec * 1000) return null;
    state.repeats = 0;
    state.lastRepeatAt = ts;
    return { kind: 'raise', value, text, at: ts };
  }
  state.breachSince = null;
  state.samples = 0;
  if (!state.activeAlarmId || state.busy || !rule.autoClear) return null;
  // Inside the threshold but not yet by the deadband: neither breaching nor cleared.
  if (rule.deadband > 0 && breaches(rule, value!, rule.deadband)) return null;
  return { kind: 'clear', alarmId: state.activeAlarmId, value, at: ts };
}

/** The threshold as the alarm list shows it: `> 80`, `< 10 | > 90`. */
export function thresholdText(rule: RuleSpec): string | null {
  const sign: Record<ComparisonOperator, string> = { gt: '>', gte: '≥', eq: '=', lt: '<', lte: '≤' };
  if (rule.mode === 'event') return null;
  if (rule.mode === 'crossBoth') return `${sign[rule.lowOperator]} ${rule.lowThreshold} | ${sign[rule.operator]} ${rule.threshold}`;
  return `${sign[rule.operator]} ${rule.threshold}`;
}
