import type { AlarmEvent, AlarmRuleEvent } from '@iot/contracts';
import type { LiveFeed } from '@iot/contracts/ports/live.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { projection } from '../projection.ts';
import { deviceGroupOf } from '../device/read.ts';
import type { AlarmReactor } from './reactor.ts';
import { alarmAddress } from './read.ts';

const liveNames = {
  AlarmRaised: 'raised',
  AlarmRepeated: 'repeated',
  AlarmAcknowledged: 'acknowledged',
  AlarmProcessed: 'processed',
  AlarmCleared: 'cleared',
} as const;
const isLive = (type: string): type is keyof typeof liveNames => type in liveNames;

/**
 * What the alarm events mean outside the read models: the evaluator learns of rule changes and of alarms
 * cleared by hand (so that a device and rule may raise again), and the `alarm.live` feed tells the screens.
 */
export function alarmLiveHooks(db: Sql, live: LiveFeed, alarms: AlarmReactor | null) {
  return projection<AlarmRuleEvent | AlarmEvent>({
    name: 'reactor-alarm-hooks',
    handles: ['AlarmRuleCreated', 'AlarmRuleUpdated', 'AlarmRuleDeleted', ...Object.keys(liveNames).filter(isLive)],
    schema: 'select 1',
    tables: [],
    async apply(_tx, event) {
      alarms?.onEvent(event);
      if (!isLive(event.type) || !live.listening('alarm.live')) return;
      const { alarmId } = event.data as { alarmId: string };
      const raised = event.type === 'AlarmRaised' ? event.data : null;
      const row = await alarmAddress(db, alarmId);
      const deviceId = raised?.deviceId ?? row?.deviceId;
      if (!deviceId) return;
      const groupId = raised ? await deviceGroupOf(db, deviceId) : (row?.groupId ?? null);
      live.publish(
        'alarm.live',
        { tenantId: event.metadata.tenantId, groupId, deviceId },
        { alarmId, event: liveNames[event.type], deviceId, level: raised?.level ?? row?.level ?? null, at: event.metadata.occurredAt },
      );
    },
  });
}
