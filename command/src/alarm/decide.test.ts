import { describe, expect, it } from 'vitest';
import { alarmRuleFields, type AlarmEvent, type AlarmRaisedData, type AlarmRuleEvent } from '@iot/contracts';
import { codeOf, scenario } from '../decider-testing.ts';
import { alarmDecider } from './decide.ts';
import { alarmRuleDecider } from './rule.ts';

const data: AlarmRaisedData = {
  alarmId: 'a1',
  ruleId: 'r1',
  ruleName: 'too warm',
  deviceId: 'd1',
  variable: 'temperature',
  type: 'device',
  category: null,
  mode: 'crossUpper',
  level: 2,
  trigger: 'every',
  threshold: '> 30',
  value: 31,
  text: null,
  at: '2025-05-03T14:02:00.000Z',
  faultFlag: false,
  cause: null,
  suggestion: null,
  push: 'firstTime',
  pushIntervalMin: null,
};
const raised: AlarmEvent = { type: 'AlarmRaised', data };
const cleared: AlarmEvent = {
  type: 'AlarmCleared',
  data: { alarmId: 'a1', value: 29, at: '2025-05-03T14:10:00.000Z', auto: true, note: null },
};
const acknowledged: AlarmEvent = { type: 'AlarmAcknowledged', data: { alarmId: 'a1' } };
const processed: AlarmEvent = { type: 'AlarmProcessed', data: { alarmId: 'a1', note: 'fan replaced' } };
const ticketOpened: AlarmEvent = { type: 'AlarmTicketOpened', data: { alarmId: 'a1', ticketId: 't1', contactId: 'c1', note: null } };
const ticketClosed: AlarmEvent = { type: 'AlarmTicketClosed', data: { alarmId: 'a1', ticketId: 't1' } };
const { given } = scenario(alarmDecider);

/** Every command but the raise: each needs an alarm that was raised. */
const onARaisedAlarm = [
  { type: 'RepeatAlarm', count: 2, value: 32, at: '2025-05-03T14:03:00.000Z' },
  { type: 'AcknowledgeAlarm' },
  { type: 'ProcessAlarm', note: 'fan replaced' },
  { type: 'ClearAlarm', value: 29, at: '2025-05-03T14:10:00.000Z', auto: false, note: 'checked' },
  { type: 'OpenTicket', ticketId: 't1', contactId: 'c1', note: null },
  { type: 'CloseTicket' },
] as const;

describe('alarm decider', () => {
  it('raises an alarm once: a second raise of the same alarm appends nothing', () => {
    expect(given([]).when({ type: 'RaiseAlarm', data })).toEqual([raised]);
    expect(given([raised]).when({ type: 'RaiseAlarm', data: { ...data, value: 35 } })).toEqual([]);
  });

  it.each(onARaisedAlarm.map((command) => [command.type, command] as const))(
    'refuses %s on an alarm never raised (NOT_FOUND)',
    (_, command) => {
      expect(codeOf(() => given([]).when(command))).toBe('NOT_FOUND');
    },
  );

  it('counts repeats while the alarm is active, and none once it is cleared', () => {
    const repeat = { type: 'RepeatAlarm', count: 3, value: 33, at: '2025-05-03T14:04:00.000Z' } as const;
    expect(given([raised]).when(repeat)).toEqual([
      { type: 'AlarmRepeated', data: { alarmId: 'a1', count: 3, value: 33, at: '2025-05-03T14:04:00.000Z' } },
    ]);
    expect(given([raised, cleared]).when(repeat)).toEqual([]);
  });

  it('acknowledges and processes once: the second time appends nothing', () => {
    expect(given([raised]).when({ type: 'AcknowledgeAlarm' })).toEqual([acknowledged]);
    expect(given([raised, acknowledged]).when({ type: 'AcknowledgeAlarm' })).toEqual([]);
    expect(given([raised]).when({ type: 'ProcessAlarm', note: 'fan replaced' })).toEqual([processed]);
    expect(given([raised, processed]).when({ type: 'ProcessAlarm', note: 'again' })).toEqual([]);
  });

  it('acknowledges and processes a cleared alarm too (an operator works through the history)', () => {
    expect(given([raised, cleared]).when({ type: 'AcknowledgeAlarm' })).toEqual([acknowledged]);
    expect(given([raised, cleared, acknowledged]).when({ type: 'ProcessAlarm', note: 'fan replaced' })).toEqual([processed]);
  });

  it('clears an active alarm, by hand or by itself, and a cleared one appends nothing', () => {
    expect(given([raised]).when({ type: 'ClearAlarm', value: 29, at: '2025-05-03T14:10:00.000Z', auto: true, note: null })).toEqual([
      cleared,
    ]);
    expect(
      given([raised, acknowledged]).when({ type: 'ClearAlarm', value: null, at: '2025-05-03T14:11:00.000Z', auto: false, note: 'checked' }),
    ).toEqual([
      { type: 'AlarmCleared', data: { alarmId: 'a1', value: null, at: '2025-05-03T14:11:00.000Z', auto: false, note: 'checked' } },
    ]);
    expect(
      given([raised, cleared]).when({ type: 'ClearAlarm', value: 28, at: '2025-05-03T14:12:00.000Z', auto: true, note: null }),
    ).toEqual([]);
  });

  it('opens one ticket at a time: a second while one is open is a CONFLICT, a new one once it is closed', () => {
    const open = { type: 'OpenTicket', ticketId: 't1', contactId: 'c1', note: null } as const;
    expect(given([raised]).when(open)).toEqual([ticketOpened]);
    expect(codeOf(() => given([raised, ticketOpened]).when({ ...open, ticketId: 't2' }))).toBe('CONFLICT');
    expect(given([raised, ticketOpened, ticketClosed]).when({ ...open, ticketId: 't2', contactId: 'c2', note: 'night shift' })).toEqual([
      { type: 'AlarmTicketOpened', data: { alarmId: 'a1', ticketId: 't2', contactId: 'c2', note: 'night shift' } },
    ]);
  });

  it('closes the open ticket, and refuses when none is open (NOT_FOUND)', () => {
    expect(given([raised, ticketOpened]).when({ type: 'CloseTicket' })).toEqual([ticketClosed]);
    expect(codeOf(() => given([raised]).when({ type: 'CloseTicket' }))).toBe('NOT_FOUND');
    expect(codeOf(() => given([raised, ticketOpened, ticketClosed]).when({ type: 'CloseTicket' }))).toBe('NOT_FOUND');
  });
});

const rule = alarmRuleFields.parse({
  name: 'too warm',
  productId: 'p1',
  variable: 'temperature',
  type: 'device',
  category: null,
  mode: 'crossUpper',
  threshold: 30,
  level: 2,
  cause: null,
  suggestion: null,
});
const ruleCreated: AlarmRuleEvent = { type: 'AlarmRuleCreated', data: { ruleId: 'r1', ...rule } };
const ruleDeleted: AlarmRuleEvent = { type: 'AlarmRuleDeleted', data: { ruleId: 'r1' } };
const { given: givenRule } = scenario(alarmRuleDecider);

describe('alarm rule decider', () => {
  it('creates a rule, and refuses a second create of its id (CONFLICT), deleted or not', () => {
    expect(givenRule([]).when({ type: 'Create', id: 'r1', fields: rule })).toEqual([ruleCreated]);
    expect(codeOf(() => givenRule([ruleCreated]).when({ type: 'Create', id: 'r1', fields: rule }))).toBe('CONFLICT');
    expect(codeOf(() => givenRule([ruleCreated, ruleDeleted]).when({ type: 'Create', id: 'r1', fields: rule }))).toBe('CONFLICT');
  });

  it('records an edit that changes a field, and appends nothing for one that changes none, whatever the order of the keys', () => {
    expect(givenRule([ruleCreated]).when({ type: 'Update', id: 'r1', fields: { ...rule, threshold: 35 } })).toEqual([
      { type: 'AlarmRuleUpdated', data: { ruleId: 'r1', ...rule, threshold: 35 } },
    ]);
    const reordered = Object.fromEntries(Object.entries(rule).reverse()) as typeof rule;
    expect(givenRule([ruleCreated]).when({ type: 'Update', id: 'r1', fields: reordered })).toEqual([]);
  });

  it('deletes a rule once, and refuses to edit or delete one that does not exist or was deleted (NOT_FOUND)', () => {
    expect(givenRule([ruleCreated]).when({ type: 'Delete', id: 'r1' })).toEqual([ruleDeleted]);
    for (const history of [[], [ruleCreated, ruleDeleted]]) {
      expect(codeOf(() => givenRule(history).when({ type: 'Update', id: 'r1', fields: rule }))).toBe('NOT_FOUND');
      expect(codeOf(() => givenRule(history).when({ type: 'Delete', id: 'r1' }))).toBe('NOT_FOUND');
    }
  });
});
