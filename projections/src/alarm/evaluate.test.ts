import { describe, expect, it } from 'vitest';
import { freshState, REPEAT_EVERY_MS, step, thresholdText, type Decision, type RuleSpec } from './evaluate.ts';

const base: RuleSpec = {
  id: 'r1',
  tenantId: 't1',
  name: 'hot',
  productId: 'p1',
  deviceId: null,
  variable: 'temperature',
  type: 'cloud',
  category: null,
  mode: 'crossUpper',
  operator: 'gt',
  threshold: 80,
  lowOperator: 'lt',
  lowThreshold: null,
  level: 4,
  trigger: 'first',
  push: 'firstTime',
  pushIntervalMin: null,
  faultFlag: false,
  cause: null,
  suggestion: null,
  autoClear: true,
  durationSec: 0,
  durationSamples: 0,
  deadband: 0,
  status: 'enabled',
};

/**
 * Given recorded values one second apart, the decisions the evaluator takes, as the reactor would apply
 * them: a raise makes the alarm active, a clear ends it.
 */
function run(rule: RuleSpec, values: (number | null)[], everyMs = 1000): string[] {
  const state = freshState();
  const out: string[] = [];
  values.forEach((value, i) => {
    const decision: Decision | null = step(rule, state, { value, text: null, ts: 1_000_000 + i * everyMs });
    if (!decision) return;
    out.push(`${decision.kind}@${i}${decision.kind === 'repeat' ? `x${decision.count}` : ''}`);
    if (decision.kind === 'raise') state.activeAlarmId = `a${i}`;
    if (decision.kind === 'clear') state.activeAlarmId = null;
  });
  return out;
}

describe('alarm evaluation', () => {
  it('raises on crossing the upper bound once, and clears when the value is back', () => {
    expect(run(base, [70, 81, 90, 85, 79, 60, 82])).toEqual(['raise@1', 'clear@4', 'raise@6']);
    expect(run({ ...base, operator: 'gte' }, [79, 80])).toEqual(['raise@1']);
  });
  it('raises on crossing the lower bound, on either bound, and on an equal value', () => {
    expect(run({ ...base, mode: 'crossLower', operator: 'lt', threshold: 10 }, [12, 9, 8, 11])).toEqual(['raise@1', 'clear@3']);
    const both = {
      ...base,
      mode: 'crossBoth' as const,
      operator: 'gt' as const,
      threshold: 90,
      lowOperator: 'lt' as const,
      lowThreshold: 10,
    };
    expect(run(both, [50, 95, 50, 5, 50])).toEqual(['raise@1', 'clear@2', 'raise@3', 'clear@4']);
    expect(run({ ...base, mode: 'equal', operator: 'eq', threshold: 1 }, [0, 1, 1, 0])).toEqual(['raise@1', 'clear@3']);
  });
  it('keeps an alarm when the rule does not clear itself', () => {
    expect(run({ ...base, autoClear: false }, [81, 70, 90])).toEqual(['raise@0']);
  });
  it('waits for the duration (seconds) and the number of samples before raising', () => {
    expect(run({ ...base, durationSec: 3 }, [81, 82, 83, 84, 85])).toEqual(['raise@3']);
    expect(run({ ...base, durationSamples: 3 }, [81, 82, 70, 81, 82, 83])).toEqual(['raise@5']);
  });
  it('does not flap on a noisy value around the threshold when a deadband is set', () => {
    const noisy = [79, 81, 79.5, 80.5, 79.8, 81, 79.9, 80.2, 74];
    expect(run(base, noisy)).toEqual(['raise@1', 'clear@2', 'raise@3', 'clear@4', 'raise@5', 'clear@6', 'raise@7', 'clear@8']);
    expect(run({ ...base, deadband: 5 }, noisy)).toEqual(['raise@1', 'clear@8']);
    // A duration filters the spikes out altogether.
    expect(run({ ...base, durationSamples: 2 }, noisy)).toEqual([]);
  });
  it('counts repeated breaches of a rule triggered every time, at most once per interval', () => {
    const values = Array.from({ length: 25 }, () => 90);
    expect(run({ ...base, trigger: 'every' }, values)).toEqual([
      'raise@0',
      `repeat@${REPEAT_EVERY_MS / 1000}x10`,
      `repeat@${(2 * REPEAT_EVERY_MS) / 1000}x10`,
    ]);
    expect(run(base, values)).toEqual(['raise@0']);
  });
  it('ignores samples without a number, and raises on every reported event in event mode', () => {
    expect(run(base, [null, 90])).toEqual(['raise@1']);
    expect(run({ ...base, mode: 'event' }, [null, null])).toEqual(['raise@0']);
  });
  it('shows the threshold as operators read it', () => {
    expect(thresholdText(base)).toBe('> 80');
    expect(thresholdText({ ...base, mode: 'crossBoth', lowThreshold: 10, lowOperator: 'lte' })).toBe('≤ 10 | > 80');
  });
});
