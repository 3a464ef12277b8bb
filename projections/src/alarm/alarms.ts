import type { AlarmEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/**
 * How many alarms are active per tenant, group ('' for none) and level, and how many of them unprocessed: what the home
 * dashboard reads instead of counting the alarms. Kept by triggers on rm_alarms (in the same transaction as the row,
 * in a rebuild's shadow schema too: the function lives in public and names the table unqualified).
 */
const alarmCountsColumns = `
      tenant_id text not null,
      group_id text not null,
      level int not null,
      active int not null default 0,
      unprocessed int not null default 0,
      primary key (tenant_id, group_id, level)`;
const countRow = (row: 'old' | 'new', sign: '' | '-') => `
      if ${row}.status = 'active' then
        insert into rm_alarm_counts as c (tenant_id, group_id, level, active, unprocessed)
        values (${row}.tenant_id, coalesce(${row}.group_id, ''), ${row}.level, ${sign}1, ${sign}(${row}.processed_at is null)::int)
        on conflict (tenant_id, group_id, level) do update set active = c.active + excluded.active, unprocessed = c.unprocessed + excluded.unprocessed;
      end if;`;
const alarmCountsTriggers = `
    create or replace function public.rm_alarm_counts_changed() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then ${countRow('old', '-')} end if;
      if tg_op in ('INSERT', 'UPDATE') then ${countRow('new', '')} end if;
      return null;
    end $$;
    create or replace trigger rm_alarm_counts_insert after insert on rm_alarms for each row
      when (new.status = 'active') execute function public.rm_alarm_counts_changed();
    create or replace trigger rm_alarm_counts_update after update on rm_alarms for each row
      when (old.status is distinct from new.status or (old.processed_at is null) is distinct from (new.processed_at is null)
        or old.level is distinct from new.level or old.group_id is distinct from new.group_id or old.tenant_id is distinct from new.tenant_id)
      execute function public.rm_alarm_counts_changed();
    create or replace trigger rm_alarm_counts_delete after delete on rm_alarms for each row
      when (old.status = 'active') execute function public.rm_alarm_counts_changed();`;

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
    create table rm_alarm_counts (${alarmCountsColumns});
    ${alarmCountsTriggers}`,
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
      sql: `create table if not exists rm_alarm_counts (${alarmCountsColumns});
        ${alarmCountsTriggers}
        insert into rm_alarm_counts (tenant_id, group_id, level, active, unprocessed)
        select tenant_id, coalesce(group_id, ''), level, count(*), count(*) filter (where processed_at is null)
        from rm_alarms where status = 'active' group by 1, 2, 3
        on conflict (tenant_id, group_id, level) do update set active = excluded.active, unprocessed = excluded.unprocessed;`,
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
          `insert into rm_alarms (id, tenant_id, rule_id, rule_name, device_id, device_name, sn, group_id, variable, type, category, mode, level,
             trigger, threshold, value, text, fault_flag, cause, suggestion, push, push_interval_min, status, raised_at)
           select $1, $2, $3, $4, $5, d.name, d.sn, d.group_id, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, 'active', $20
           from (select 1) one left join rm_devices d on d.id = $5
           on conflict (id) do nothing`,
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
        await tx.query('update rm_alarms set processed_by = $2, processed_at = $3, process_note = $4 where id = $1', [
          id,
          actor,
          at,
          event.data.note,
        ]);
        return;
      case 'AlarmCleared':
        await tx.query(`update rm_alarms set status = 'cleared', cleared_at = $2, cleared_by = $3 where id = $1`, [
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
