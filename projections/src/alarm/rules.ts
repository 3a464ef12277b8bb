import type { AlarmRuleEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Alarm settings: each rule's fields as one JSON document, with the columns lists filter on. */
export const alarmRulesProjection = projection<AlarmRuleEvent>({
  name: 'alarmRules',
  handles: ['AlarmRuleCreated', 'AlarmRuleUpdated', 'AlarmRuleDeleted'],
  tables: ['rm_alarm_rules'],
  schema: `
    create table rm_alarm_rules (
      id text primary key,
      tenant_id text not null,
      product_id text not null,
      device_id text,
      name text not null,
      level int not null,
      status text not null,
      fields jsonb not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index rm_alarm_rules_tenant on rm_alarm_rules (tenant_id, created_at desc);
    create index rm_alarm_rules_product on rm_alarm_rules (product_id);`,
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    switch (event.type) {
      case 'AlarmRuleCreated':
      case 'AlarmRuleUpdated': {
        const { ruleId, ...fields } = event.data;
        await tx.query(
          `insert into rm_alarm_rules (id, tenant_id, product_id, device_id, name, level, status, fields, created_at, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
           on conflict (id) do update set product_id = $3, device_id = $4, name = $5, level = $6, status = $7, fields = $8, updated_at = $9`,
          [
            ruleId,
            event.metadata.tenantId,
            fields.productId,
            fields.deviceId,
            fields.name,
            fields.level,
            fields.status,
            JSON.stringify(fields),
            at,
          ],
        );
        return;
      }
      case 'AlarmRuleDeleted':
        await tx.query('delete from rm_alarm_rules where id = $1', [event.data.ruleId]);
        return;
    }
  },
});
