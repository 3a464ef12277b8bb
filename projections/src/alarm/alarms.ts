import type { AlarmEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/**
 * How many alarms are active per tenant, group ('' for none) and level, and how many of them unprocessed: what the home
 * dashboard reads instead of counting the alarms. Every statement of this projection that adds an alarm or changes a
 * counted column (status, processed) moves the counters by its delta in the same statement (no triggers: the
 * projection is the one writer of its rows).
 */
const alarmCountsColumns = `
      tenant_id text not null,
      group_id text not null,
      level int not null,
      active int not null default 0,
      unprocessed int not null default 0,
      primary key (tenant_id, group_id, level)`;
/**
 * The active rows a statement added (sign 1) and removed (sign -1), summed per tenant, group and level and added to the
 * counters: an upsert of `+ delta`, so two transactions on the same counter row add up instead of overwriting.
 */
const countDelta = (rows: string) => `
      insert into rm_alarm_counts as c (tenant_id, group_id, level, active, unprocessed)
      select tenant_id, coalesce(group_id, ''), level, sum(sign), sum(sign * (processed_at is null)::int)
      from (${rows}) r where status = 'active' group by 1, 2, 3
      having sum(sign) <> 0 or sum(sign * (processed_at is null)::int) <> 0
      order by 1, 2, 3
      on conflict (tenant_id, group_id, level) do update set active = c.active + excluded.active, unprocessed = c.unprocessed + excluded.unprocessed`;
/** An update of counted columns: the table joined to itself as `o` gives the row as the statement found it. */
const updateCounted = (set: string) => `
      with changed as (update rm_alarms a set ${set} from rm_alarms o where a.id = $1 and o.id = a.id
        returning a.tenant_id, a.group_id, a.level, a.status, a.processed_at,
          o.tenant_id as old_tenant_id, o.group_id as old_group_id, o.level as old_level, o.status as old_status, o.processed_at as old_processed_at)
      ${countDelta(`select tenant_id, group_id, level, status, processed_at, 1 as sign from changed
        union all select old_tenant_id, old_group_id, old_level, old_status, old_processed_at, -1 from changed`)}`;
/** The counters counted from the rows: what a migration starts them from. */
const alarmRecountSql = `
      delete from rm_alarm_counts;
      insert into rm_alarm_counts (tenant_id, group_id, level, active, unprocessed)
      select tenant_id, coalesce(group_id, ''), level, count(*), count(*) filter (where processed_at is null)
      from rm_alarms where status = 'active' group by 1, 2, 3;`;

/** Alarms, current and historical, with the device's name, SN and group as they were when it was raised. */
export const alarmsProjection = projection<AlarmEvent>({
  name: 'alarms',
  handles: [
    'AlarmRaised',
    'AlarmRepeated',
    'AlarmAcknowledged',
    'AlarmProcessed',
    'AlarmCleared',
    'AlarmTicketOpened',
    'AlarmTicketClosed',
  ],
  tables: ['rm_alarms', 'rm_alarm_counts'],
  schema: `
    create table rm_alarms (
      id text primary key,
      tenant_id text not null,
      rule_id text,
      rule_name text,
      device_id text not null,
      device_name text,
      sn text,
      group_id text,
      variable text,
      type text not null,
      category text,
      mode text,
      level int not null,
      trigger text not null,
      threshold text,
      value double precision,
      text text,
      fault_flag boolean not null,
      cause text,
      suggestion text,
      push text not null,
      push_interval_min int,
      status text not null,
      count int not null default 1,
      raised_at timestamptz not null,
      cleared_at timestamptz,
      cleared_by text,
      acknowledged_by text,
      acknowledged_at timestamptz,
      processed_by text,
      processed_at timestamptz,
      process_note text,
      ticket_id text,
      ticket_contact_id text,
      ticket_open boolean not null default false
    );
    create index rm_alarms_current on rm_alarms (tenant_id, status, raised_at desc);
    create index rm_alarms_device on rm_alarms (device_id, raised_at desc);
    create index if not exists rm_alarms_group on rm_alarms (tenant_id, group_id);
    create index if not exists rm_alarms_raised on rm_alarms (tenant_id, raised_at desc);
    create table rm_alarm_counts (${alarmCountsColumns});`,
  migrations: [
    {
      version: 2,
      name: 'group and raised indexes (the home dashboard)',
      sql: `create index if not exists rm_alarms_group on rm_alarms (tenant_id, group_id);
        create index if not exists rm_alarms_raised on rm_alarms (tenant_id, raised_at desc);`,
    },
    {
      version: 3,
      name: 'active alarm counts per tenant, group and level (the home dashboard), counted once from the rows',
      // Before version 4 this also created the triggers that kept the counters; version 4 drops them where they exist.
      sql: `create table if not exists rm_alarm_counts (${alarmCountsColumns});
        ${alarmRecountSql}`,
    },
    {
      version: 4,
      name: 'alarm counts kept by the projection, not by triggers: triggers dropped, counters recounted from the rows',
      sql: `drop trigger if exists rm_alarm_counts_insert on rm_alarms;
        drop trigger if exists rm_alarm_counts_update on rm_alarms;
        drop trigger if exists rm_alarm_counts_delete on rm_alarms;
        drop function if exists public.rm_alarm_counts_changed();
        ${alarmRecountSql}`,
    },
  ],
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    const actor = event.metadata.actor.id;
    const id = event.data.alarmId;
    switch (event.type) {
      case 'AlarmRaised': {
        const d = event.data;
        await tx.query(
          `with inserted as (insert into rm_alarms (id, tenant_id, rule_id, rule_name, device_id, device_name, sn, group_id, variable, type, category, mode, level,
             trigger, threshold, value, text, fault_flag, cause, suggestion, push, push_interval_min, status, raised_at)
           select $1, $2, $3, $4, $5, d.name, d.sn, d.group_id, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, 'active', $20
           from (select 1) one left join rm_devices d on d.id = $5
           on conflict (id) do nothing
           returning tenant_id, group_id, level, status, processed_at)
           ${countDelta('select tenant_id, group_id, level, status, processed_at, 1 as sign from inserted')}`,
          [
            id,
            event.metadata.tenantId,
            d.ruleId,
            d.ruleName,
            d.deviceId,
            d.variable,
            d.type,
            d.category,
            d.mode,
            d.level,
            d.trigger,
            d.threshold,
            d.value,
            d.text,
            d.faultFlag,
            d.cause,
            d.suggestion,
            d.push,
            d.pushIntervalMin,
            d.at,
          ],
        );
        return;
      }
      case 'AlarmRepeated':
        await tx.query('update rm_alarms set count = count + $2, value = $3 where id = $1', [id, event.data.count, event.data.value]);
        return;
      case 'AlarmAcknowledged':
        await tx.query('update rm_alarms set acknowledged_by = $2, acknowledged_at = $3 where id = $1', [id, actor, at]);
        return;
      case 'AlarmProcessed':
        await tx.query(updateCounted('processed_by = $2, processed_at = $3, process_note = $4'), [id, actor, at, event.data.note]);
        return;
      case 'AlarmCleared':
        await tx.query(updateCounted(`status = 'cleared', cleared_at = $2, cleared_by = $3`), [
          id,
          event.data.auto ? event.data.at : at,
          event.data.auto ? 'auto' : actor,
        ]);
        return;
      case 'AlarmTicketOpened':
        await tx.query('update rm_alarms set ticket_id = $2, ticket_contact_id = $3, ticket_open = true where id = $1', [
          id,
          event.data.ticketId,
          event.data.contactId,
        ]);
        return;
      case 'AlarmTicketClosed':
        await tx.query('update rm_alarms set ticket_open = false where id = $1', [id]);
        return;
    }
  },
});
