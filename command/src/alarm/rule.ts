import type { AlarmRuleEvent, AlarmRuleFields } from '@iot/contracts';
import { recordDecider } from '../shared/record-decider.ts';

/** An alarm rule is a record an operator keeps; what it raises is the alarm aggregate's business. */
export const alarmRuleDecider = recordDecider<AlarmRuleFields, AlarmRuleEvent>(
  { created: 'AlarmRuleCreated', updated: 'AlarmRuleUpdated', deleted: 'AlarmRuleDeleted' },
  'ruleId',
);
export const alarmRuleStream = (tenantId: string, id: string) => `alarmRule-${tenantId}.${id}`;
