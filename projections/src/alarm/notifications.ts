import { inQuietHours, renderTemplate, type AlarmEvent, type QuietHours, type TemplateValues } from '@iot/contracts';
import { alarmLevelName, alarmStatusName, templateLanguage } from '@iot/contracts/alarm/level-names.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { projection, type AnyProjection } from '../projection.ts';

export interface NotificationCaps {
  /** Records a tenant may get per minute; beyond, one summary per recipient when the minute is over. */
  tenantPerMinute: number;
  /** Records one recipient may get per minute. */
  contactPerMinute: number;
}

interface Recipient {
  sendWay: 'sms' | 'email' | 'inApp' | 'wechat';
  recipient: string;
  contactId: string | null;
  contactName: string | null;
}

/** The configurations an alarm of this level and group matches: enabled, source alarm, the group's subtree. */
async function matchingConfigs(tx: Sql, tenantId: string, groupId: string | null, level: number) {
  return (
    await tx.query<{ id: string; type: string; send_ways: string[]; contact_ids: string[]; subject: string | null; content: string }>(
      `select c.id, c.type, c.send_ways, c.contact_ids, t.subject, t.content
       from rm_notify_configs c join rm_notify_templates t on t.id = c.template_id
       where c.tenant_id = $1 and c.status = 'enabled' and c.source = 'alarm' and c.min_level <= $3
         and (c.group_id is null or $2::text in (
           with recursive sub(id) as (select c.group_id union select g.id from rm_groups g join sub on g.parent_id = sub.id) select id from sub))`,
      [tenantId, groupId, level],
    )
  ).rows;
}

async function recipientsOf(tx: Sql, config: { type: string; send_ways: string[]; contact_ids: string[] }): Promise<Recipient[]> {
  const contacts = (
    await tx.query<{ id: string; name: string; phone: string | null; email: string }>(
      'select id, name, phone, email from rm_contacts where id = any($1) order by name',
      [config.contact_ids],
    )
  ).rows;
  const out: Recipient[] = [];
  for (const way of config.send_ways) {
    if (way === 'inApp') out.push({ sendWay: 'inApp', recipient: 'inbox', contactId: null, contactName: null });
    for (const c of contacts) {
      if (way === 'email') out.push({ sendWay: 'email', recipient: c.email, contactId: c.id, contactName: c.name });
      if (way === 'sms' && c.phone) out.push({ sendWay: 'sms', recipient: c.phone, contactId: c.id, contactName: c.name });
    }
  }
  // WeChat templates go to the tenant's group robot as well.
  if (config.type === 'wechat') out.push({ sendWay: 'wechat', recipient: 'robot', contactId: null, contactName: null });
  return out;
}

/**
 * Counts one more notification of this minute under `key`, unless `cap` is reached: answers whether it was counted.
 * The upsert locks the counter's row, so a concurrent reactor waits for this transaction and then sees its count.
 */
async function take(tx: Sql, tenantId: string, key: string, cap: number): Promise<boolean> {
  const taken = await tx.query(
    `insert into notify_rate (tenant_id, minute, key, n) values ($1, date_trunc('minute', now()), $2, 1)
     on conflict (tenant_id, minute, key) do update set n = notify_rate.n + 1 where notify_rate.n < $3
     returning n`,
    [tenantId, key, cap],
  );
  return taken.rowCount > 0;
}

/**
 * Writes one record per recipient under the storm caps; beyond a cap the recipient's count of suppressed
 * notifications for the minute grows instead, and the delivery worker sends one summary once it is over.
 */
async function enqueue(
  tx: Sql,
  caps: NotificationCaps,
  record: {
    tenantId: string;
    sourceKey: string;
    configId: string | null;
    alarmId: string | null;
    ticketId: string | null;
    sn: string | null;
    groupId: string | null;
    type: string;
    subject: string;
    body: string;
  },
  to: Recipient,
) {
  const recipientKey = `${to.sendWay}:${to.recipient}`;
  let within = await take(tx, record.tenantId, recipientKey, caps.contactPerMinute);
  if (within && !(await take(tx, record.tenantId, '*', caps.tenantPerMinute))) {
    // The tenant's cap is reached: the recipient's count goes back to what was written.
    await tx.query(`update notify_rate set n = n - 1 where tenant_id = $1 and minute = date_trunc('minute', now()) and key = $2`, [
      record.tenantId,
      recipientKey,
    ]);
    within = false;
  }
  if (!within) {
    await tx.query(
      `insert into notify_storm (tenant_id, minute, send_way, recipient, contact_id, suppressed) values ($1, date_trunc('minute', now()), $2, $3, $4, 1)
       on conflict (tenant_id, minute, send_way, recipient) do update set suppressed = notify_storm.suppressed + 1`,
      [record.tenantId, to.sendWay, to.recipient, to.contactId],
    );
    return;
  }
  await tx.query(
    `insert into notify_records (tenant_id, source_key, config_id, alarm_id, ticket_id, sn, group_id, send_way, type, recipient, contact_id, contact_name, subject, body)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) on conflict do nothing`,
    [
      record.tenantId,
      record.sourceKey,
      record.configId,
      record.alarmId,
      record.ticketId,
      record.sn,
      record.groupId,
      to.sendWay,
      record.type,
      to.recipient,
      to.contactId,
      to.contactName,
      record.subject,
      record.body,
    ],
  );
}

/** The tenant's caps (its own, or the platform's) and quiet hours. */
async function tenantSettings(tx: Sql, tenantId: string, platform: NotificationCaps) {
  const row = (
    await tx.query<{ tenant_per_min: number | null; contact_per_min: number | null; quiet_hours: QuietHours | null }>(
      'select tenant_per_min, contact_per_min, quiet_hours from rm_notify_settings where tenant_id = $1',
      [tenantId],
    )
  ).rows[0];
  return {
    caps: {
      tenantPerMinute: row?.tenant_per_min ?? platform.tenantPerMinute,
      contactPerMinute: row?.contact_per_min ?? platform.contactPerMinute,
    },
    quiet: row?.quiet_hours ?? null,
  };
}

/**
 * A notification that is not an alarm's (a scene's notify action, a rule chain's notify node) through one enabled
 * configuration of the tenant: its template rendered with `values`, one record per recipient under the storm caps.
 * Answers the records' count, or null when the tenant has no such enabled configuration.
 */
export async function enqueueConfigNotification(
  db: Sql,
  platform: NotificationCaps,
  n: { tenantId: string; configId: string; sourceKey: string; sn: string | null; groupId: string | null; values: TemplateValues },
): Promise<number | null> {
  const config = (
    await db.query<{ id: string; type: string; send_ways: string[]; contact_ids: string[]; subject: string | null; content: string }>(
      `select c.id, c.type, c.send_ways, c.contact_ids, t.subject, t.content
       from rm_notify_configs c join rm_notify_templates t on t.id = c.template_id
       where c.tenant_id = $1 and c.id = $2 and c.status = 'enabled'`,
      [n.tenantId, n.configId],
    )
  ).rows[0];
  if (!config) return null;
  const settings = await tenantSettings(db, n.tenantId, platform);
  const subject = renderTemplate(config.subject ?? '{{rule}} {{device}}', n.values);
  const body = renderTemplate(config.content, n.values);
  const recipients = await recipientsOf(db, config);
  for (const to of recipients)
    await enqueue(db, settings.caps, { ...n, configId: config.id, alarmId: null, ticketId: null, type: config.type, subject, body }, to);
  return recipients.length;
}

/**
 * The notification reactor: an alarm raised reaches the contacts of every matching configuration, through
 * its template; a ticket opened reaches its assignee. Records are written in the transaction that moves
 * the reactor's checkpoint, so a replay after a crash writes none twice (and the unique key backs it).
 */
export function notificationReactor(caps: NotificationCaps): AnyProjection {
  return projection<AlarmEvent>({
    name: 'reactor-notifications',
    handles: ['AlarmRaised', 'AlarmTicketOpened'],
    schema: 'select 1',
    tables: [],
    async apply(tx, event) {
      const tenantId = event.metadata.tenantId;
      if (event.type === 'AlarmRaised') {
        const alarm = event.data;
        const device = (
          await tx.query<{ name: string; sn: string; group_id: string | null }>('select name, sn, group_id from rm_devices where id = $1', [
            alarm.deviceId,
          ])
        ).rows[0];
        const values: TemplateValues = {
          device: device?.name ?? alarm.deviceId,
          sn: device?.sn ?? null,
          variable: alarm.variable,
          value: alarm.value ?? alarm.text,
          level: alarm.level,
          time: alarm.at.replace('T', ' ').slice(0, 19),
          cause: alarm.cause,
          suggestion: alarm.suggestion,
          rule: alarm.ruleName,
          status: 'active',
        };
        const settings = await tenantSettings(tx, tenantId, caps);
        // Quiet hours (the tenant's clock, at the raise): no SMS or WeChat below the chosen level; in-app and email still go.
        const quiet =
          !!settings.quiet && alarm.level < settings.quiet.minLevel && inQuietHours(settings.quiet, new Date(event.metadata.occurredAt));
        for (const config of await matchingConfigs(tx, tenantId, device?.group_id ?? null, alarm.level)) {
          // The level and status are named in the template's own language.
          const lang = templateLanguage(`${config.subject ?? ''}${config.content}`);
          const named = { ...values, level: alarmLevelName(alarm.level, lang), status: alarmStatusName('active', lang) };
          const subject = renderTemplate(config.subject ?? '告警 {{device}} {{variable}}', named);
          const body = renderTemplate(config.content, named);
          for (const to of await recipientsOf(tx, config)) {
            if (quiet && (to.sendWay === 'sms' || to.sendWay === 'wechat')) continue;
            await enqueue(
              tx,
              settings.caps,
              {
                tenantId,
                sourceKey: `alarm:${alarm.alarmId}:${config.id}`,
                configId: config.id,
                alarmId: alarm.alarmId,
                ticketId: null,
                sn: device?.sn ?? null,
                groupId: device?.group_id ?? null,
                type: config.type,
                subject,
                body,
              },
              to,
            );
          }
        }
        return;
      }
      if (event.type === 'AlarmTicketOpened') {
        const { alarmId, ticketId, contactId, note } = event.data;
        const row = (
          await tx.query<{
            name: string;
            email: string;
            sn: string | null;
            group_id: string | null;
            device_name: string | null;
            rule_name: string | null;
          }>(
            `select k.name, k.email, a.sn, a.group_id, a.device_name, a.rule_name from rm_contacts k left join rm_alarms a on a.id = $2 where k.id = $1`,
            [contactId, alarmId],
          )
        ).rows[0];
        if (!row) return;
        await enqueue(
          tx,
          (await tenantSettings(tx, tenantId, caps)).caps,
          {
            tenantId,
            sourceKey: `ticket:${ticketId}`,
            configId: null,
            alarmId,
            ticketId,
            sn: row.sn,
            groupId: row.group_id,
            type: 'email',
            subject: `待办工单 To-do ticket ${ticketId}`,
            body: `${row.device_name ?? ''} ${row.rule_name ?? ''}\n${note ?? ''}`.trim(),
          },
          { sendWay: 'email', recipient: row.email, contactId, contactName: row.name },
        );
      }
    },
  });
}
