import type { AlarmRuleEvent, AlarmRuleFields } from '@iot/contracts';
import { recordDecider, type RecordDecider } from '../shared/record-decider.ts';

/** An alarm rule is a record an operator keeps; what it raises is the alarm aggregate's business. */
export const alarmRuleDecider = recordDecider<AlarmRuleFields>()(
  { created: 'AlarmRuleCreated', updated: 'AlarmRuleUpdated', deleted: 'AlarmRuleDeleted' },
  'ruleId',
) satisfies RecordDecider<AlarmRuleFields, AlarmRuleEvent>;
export const alarmRuleStream = (tenantId: string, id: string) => `alarmRule-${tenantId}.${id}`;
