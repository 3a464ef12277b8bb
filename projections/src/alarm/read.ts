import type {
  AlarmRaisedData,
  AlarmRuleFields,
  AlarmStatus,
  ContactFields,
  NotifyConfigFields,
  NotifySettingsFields,
  NotifyTemplateFields,
  NotifyType,
  Page,
  PageQuery,
  RecordStatus,
  SendWay,
  alarmRuleSortable,
  alarmSortable,
  contactSortable,
  notifyConfigSortable,
  notifyRecordSortable,
  notifyTemplateSortable,
} from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import type { StatCycle } from '@iot/contracts/ports/timeseries.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';
import type { Fields } from '../shared/row.ts';
import { readByUser } from './outbox.ts';

// ---------------------------------------------------------------- alarms (rm_alarms)

/** An alarm as the alarms projection keeps it, with its device's name, SN and group as they were when it was raised. */
export type AlarmRecord = Fields<Omit<AlarmRaisedData, 'alarmId' | 'at' | 'push' | 'pushIntervalMin'>> & {
  id: string;
  tenantId: string;
  deviceName: string | null;
  sn: string | null;
  groupId: string | null;
  status: AlarmStatus;
  count: number;
  raisedAt: Date;
  clearedAt: Date | null;
  clearedBy: string | null;
  acknowledgedBy: string | null;
  acknowledgedAt: Date | null;
  processedBy: string | null;
  processedAt: Date | null;
  processNote: string | null;
  ticketId: string | null;
};

const ALARM = `a.id, a.tenant_id as "tenantId", a.rule_id as "ruleId", a.rule_name as "ruleName", a.device_id as "deviceId",
  a.device_name as "deviceName", a.sn, a.group_id as "groupId", a.variable, a.type, a.category, a.mode, a.level, a.trigger, a.threshold,
  a.value, a.text, a.fault_flag as "faultFlag", a.cause, a.suggestion, a.status, a.count, a.raised_at as "raisedAt",
  a.cleared_at as "clearedAt", a.cleared_by as "clearedBy", a.acknowledged_by as "acknowledgedBy", a.acknowledged_at as "acknowledgedAt",
  a.processed_by as "processedBy", a.processed_at as "processedAt", a.process_note as "processNote", a.ticket_id as "ticketId"`;

export interface AlarmFilter {
  /** Active alarms, or the history (cleared ones). */
  status: AlarmStatus;
  /** Only alarms of devices in these groups (a station's subtree). */
  groupIds?: string[];
  level?: number;
  deviceId?: string;
  /** A part of the SN. */
  sn?: string;
  ruleId?: string;
  processed?: boolean;
  /** Raised at or after. */
  from?: string;
  /** Raised before. */
  to?: string;
}
/** The columns a list sorts by, for each name the route's query allows. */
const alarmSortBy = { raisedAt: 'a.raised_at', level: 'a.level', clearedAt: 'a.cleared_at' } satisfies Record<
  (typeof alarmSortable)[number],
  string
>;

/** A page of a tenant's alarms, filtered; sorted as the route allows, latest raised first by default. */
export async function alarmsPage(db: Sql, tenantId: string, filter: AlarmFilter, page: PageQuery): Promise<Page<AlarmRecord>> {
  const spec: ListSpec = {
    select: ALARM,
    from: 'rm_alarms a',
    where: ['a.tenant_id = $1', 'a.status = $2'],
    params: [tenantId, filter.status],
    sortable: alarmSortBy,
    defaultSort: 'a.raised_at',
  };
  const { where, params } = spec;
  if (filter.groupIds) where.push(`a.group_id = any(${param(params, filter.groupIds)})`);
  if (filter.level) where.push(`a.level = ${param(params, filter.level)}`);
  if (filter.deviceId) where.push(`a.device_id = ${param(params, filter.deviceId)}`);
  if (filter.sn) where.push(`a.sn ilike ${param(params, `%${filter.sn}%`)}`);
  if (filter.ruleId) where.push(`a.rule_id = ${param(params, filter.ruleId)}`);
  if (filter.processed !== undefined) where.push(filter.processed ? 'a.processed_at is not null' : 'a.processed_at is null');
  if (filter.from) where.push(`a.raised_at >= ${param(params, filter.from)}`);
  if (filter.to) where.push(`a.raised_at < ${param(params, filter.to)}`);
  return pageRows<AlarmRecord>(db, page, spec);
}

/** An alarm of a tenant, by id; with `groupIds`, only one of a device in those groups. */
export async function alarmById(db: Sql, tenantId: string, id: string, groupIds?: string[]): Promise<AlarmRecord | null> {
  const params: unknown[] = [tenantId, id];
  const scope = groupIds ? `and a.group_id = any(${param(params, groupIds)})` : '';
  return (
    (await db.query<AlarmRecord>(`select ${ALARM} from rm_alarms a where a.tenant_id = $1 and a.id = $2 ${scope}`, params)).rows[0] ?? null
  );
}

/** A tenant's active alarms counted by level, and how many of each are not processed; with `groupIds`, only those of these groups. */
export async function activeAlarmCounts(
  db: Sql,
  tenantId: string,
  groupIds?: string[],
): Promise<Array<{ level: number; count: number; unprocessed: number }>> {
  const params: unknown[] = [tenantId];
  const scope = groupIds ? `and group_id = any(${param(params, groupIds)})` : '';
  const rows = await db.query<{ level: number; count: number; unprocessed: number }>(
    `select level, sum(active)::int as count, sum(unprocessed)::int as unprocessed
     from rm_alarm_counts where tenant_id = $1 ${scope} group by level having sum(active) > 0 order by level`,
    params,
  );
  return rows.rows;
}

/** The same counts as `activeAlarmCounts`, counted from the alarm rows: what the kept counters must always equal. */
export async function activeAlarmRecount(
  db: Sql,
  tenantId: string,
  groupIds?: string[],
): Promise<Array<{ level: number; count: number; unprocessed: number }>> {
  const params: unknown[] = [tenantId];
  const scope = groupIds ? `and group_id = any(${param(params, groupIds)})` : '';
  const rows = await db.query<{ level: number; count: number; unprocessed: number }>(
    `select level, count(*)::int as count, count(*) filter (where processed_at is null)::int as unprocessed
     from rm_alarms where tenant_id = $1 and status = 'active' ${scope} group by level order by level`,
    params,
  );
  return rows.rows;
}

// ---------------------------------------------------------------- alarm rules (rm_alarm_rules)

/** An alarm rule as the rules projection keeps it: its fields as they were last set, with its product's and device's names. */
export interface AlarmRuleRecord {
  id: string;
  fields: AlarmRuleFields;
  productName: string | null;
  deviceName: string | null;
  createdAt: Date;
}
export interface AlarmRuleFilter {
  /** A part of the name. */
  name?: string;
  productId?: string;
  deviceId?: string;
}
const ruleSortBy = { createTime: 'r.created_at', name: 'lower(r.name)', level: 'r.level' } satisfies Record<
  (typeof alarmRuleSortable)[number],
  string
>;

/** A page of a tenant's alarm rules, filtered; sorted as the route allows, newest first by default. */
export async function alarmRulesPage(db: Sql, tenantId: string, filter: AlarmRuleFilter, page: PageQuery): Promise<Page<AlarmRuleRecord>> {
  const spec: ListSpec = {
    select: 'r.id, r.fields, p.name as "productName", d.name as "deviceName", r.created_at as "createdAt"',
    from: 'rm_alarm_rules r left join rm_products p on p.id = r.product_id left join rm_devices d on d.id = r.device_id',
    where: ['r.tenant_id = $1'],
    params: [tenantId],
    sortable: ruleSortBy,
    defaultSort: 'r.created_at',
  };
  const { where, params } = spec;
  if (filter.name) where.push(`r.name ilike ${param(params, `%${filter.name}%`)}`);
  if (filter.productId) where.push(`r.product_id = ${param(params, filter.productId)}`);
  if (filter.deviceId) where.push(`r.device_id = ${param(params, filter.deviceId)}`);
  return pageRows<Fields<AlarmRuleRecord>>(db, page, spec);
}

// ---------------------------------------------------------------- contacts, templates, configurations (rm_contacts, rm_notify_*)

/** An alarm contact of a tenant, as the notify projection keeps it. */
export type ContactRecord = Fields<ContactFields> & { id: string; createdAt: Date };
const CONTACT = `id, name, phone, email, email_activated as "emailActivated", wechat, remark, created_at as "createdAt"`;
const contactSortBy = { createTime: 'created_at', name: 'lower(name)' } satisfies Record<(typeof contactSortable)[number], string>;

/** A page of a tenant's contacts, those whose name holds `name`; sorted as the route allows, newest first by default. */
export async function contactsPage(db: Sql, tenantId: string, filter: { name?: string }, page: PageQuery): Promise<Page<ContactRecord>> {
  const spec: ListSpec = {
    select: CONTACT,
    from: 'rm_contacts',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: contactSortBy,
    defaultSort: 'created_at',
  };
  if (filter.name) spec.where.push(`name ilike ${param(spec.params, `%${filter.name}%`)}`);
  return pageRows<ContactRecord>(db, page, spec);
}

/** Those of `contactIds` that are contacts of the tenant. */
export async function contactsOfTenant(db: Sql, tenantId: string, contactIds: string[]): Promise<string[]> {
  if (contactIds.length === 0) return [];
  const rows = await db.query<{ id: string }>('select id from rm_contacts where tenant_id = $1 and id = any($2)', [tenantId, contactIds]);
  return rows.rows.map((r) => r.id);
}

/** A notification template of a tenant, as the notify projection keeps it. */
export type NotifyTemplateRecord = Fields<Omit<NotifyTemplateFields, 'subject'>> & { id: string; subject: string | null; createdAt: Date };
const TEMPLATE = `id, code, name, type, subject, content, created_at as "createdAt"`;
const templateSortBy = { createTime: 'created_at', name: 'lower(name)', code: 'code' } satisfies Record<
  (typeof notifyTemplateSortable)[number],
  string
>;

/** A page of a tenant's templates, those whose name or code holds `name`, of a type; sorted as the route allows. */
export async function notifyTemplatesPage(
  db: Sql,
  tenantId: string,
  filter: { name?: string; type?: NotifyType },
  page: PageQuery,
): Promise<Page<NotifyTemplateRecord>> {
  const spec: ListSpec = {
    select: TEMPLATE,
    from: 'rm_notify_templates',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: templateSortBy,
    defaultSort: 'created_at',
  };
  if (filter.name) {
    const like = param(spec.params, `%${filter.name}%`);
    spec.where.push(`(name ilike ${like} or code ilike ${like})`);
  }
  if (filter.type) spec.where.push(`type = ${param(spec.params, filter.type)}`);
  return pageRows<NotifyTemplateRecord>(db, page, spec);
}

/** Whether the notification template is one of the tenant's. */
export async function notifyTemplateExists(db: Sql, tenantId: string, templateId: string): Promise<boolean> {
  return (await db.query('select 1 from rm_notify_templates where id = $1 and tenant_id = $2', [templateId, tenantId])).rowCount > 0;
}

/** Whether a notification configuration of the tenant sends through the template. */
export async function notifyTemplateInUse(db: Sql, tenantId: string, templateId: string): Promise<boolean> {
  return (
    (await db.query('select 1 from rm_notify_configs where tenant_id = $1 and template_id = $2 limit 1', [tenantId, templateId])).rowCount >
    0
  );
}

/** A notification configuration of a tenant, with the names of its group, template and contacts (by name). */
export type NotifyConfigRecord = Fields<NotifyConfigFields> & {
  id: string;
  groupName: string | null;
  templateName: string | null;
  contactNames: string[];
  createdAt: Date;
};
const configSortBy = { createTime: 'c.created_at', name: 'lower(c.name)' } satisfies Record<(typeof notifyConfigSortable)[number], string>;

/** A page of a tenant's notification configurations, those whose name holds `name`; sorted as the route allows. */
export async function notifyConfigsPage(
  db: Sql,
  tenantId: string,
  filter: { name?: string },
  page: PageQuery,
): Promise<Page<NotifyConfigRecord>> {
  const spec: ListSpec = {
    select: `c.id, c.name, c.source, c.group_id as "groupId", g.name as "groupName", c.type, c.template_id as "templateId",
      t.name as "templateName", c.send_ways as "sendWays", c.contact_ids as "contactIds",
      array(select k.name from rm_contacts k where k.id = any(c.contact_ids) order by k.name) as "contactNames",
      c.min_level as "minLevel", c.status, c.created_at as "createdAt"`,
    from: 'rm_notify_configs c left join rm_groups g on g.id = c.group_id left join rm_notify_templates t on t.id = c.template_id',
    where: ['c.tenant_id = $1'],
    params: [tenantId],
    sortable: configSortBy,
    defaultSort: 'c.created_at',
  };
  if (filter.name) spec.where.push(`c.name ilike ${param(spec.params, `%${filter.name}%`)}`);
  return pageRows<NotifyConfigRecord>(db, page, spec);
}

// ---------------------------------------------------------------- settings (rm_notify_settings)

/** What a tenant set of its notification settings (never a credential), or null when it never set any. */
export async function notifySettingsOf(db: Sql, tenantId: string): Promise<Fields<NotifySettingsFields> | null> {
  const rows = await db.query<Fields<NotifySettingsFields>>(
    `select smtp_from as "smtpFrom", sms_endpoint as "smsEndpoint", sms_sign_name as "smsSignName", sms_template_code as "smsTemplateCode",
       tenant_per_min as "tenantPerMinute", contact_per_min as "contactPerMinute", quiet_hours as "quietHours"
     from rm_notify_settings where tenant_id = $1`,
    [tenantId],
  );
  return rows.rows[0] ?? null;
}

// ---------------------------------------------------------------- notification records (the outbox, notify_records)

/** A notification record as the reactor wrote it and delivery left it, with whether its reader has read it (in-app only). */
export type NotifyRecord = {
  id: string;
  groupId: string | null;
  status: RecordStatus;
  error: string | null;
  attempts: number;
  sendWay: SendWay | 'wechat';
  type: string;
  recipient: string;
  contactName: string | null;
  subject: string;
  body: string;
  alarmId: string | null;
  ticketId: string | null;
  sn: string | null;
  /** A storm summary: subject and body as the summary's counts, in both languages. */
  summary: boolean;
  createdAt: Date;
  sentAt: Date | null;
  via: string | null;
  read: boolean;
};
const RECORD = `r.id::text as id, r.group_id as "groupId", r.status, r.error, r.attempts, r.send_way as "sendWay", r.type, r.recipient,
  r.contact_name as "contactName", r.subject, r.body, r.alarm_id as "alarmId", r.ticket_id as "ticketId", r.sn, r.summary,
  r.created_at as "createdAt", r.sent_at as "sentAt", r.via`;
// Read marks are the reader's own ($2), of in-app messages only.
const readByReader = `(r.send_way = 'inApp' and ${readByUser('r', '$1', '$2')})`;

export interface NotifyRecordFilter {
  status?: RecordStatus;
  sendWay?: SendWay | 'wechat';
  read?: boolean;
  /** A part of the SN. */
  sn?: string;
  alarmId?: string;
}
const recordSortBy = { createTime: 'r.created_at', status: 'r.status' } satisfies Record<(typeof notifyRecordSortable)[number], string>;

/** A page of a tenant's notification records as `userId` reads them, filtered; sorted as the route allows, newest first by default. */
export async function notifyRecordsPage(
  db: Sql,
  tenantId: string,
  userId: string,
  filter: NotifyRecordFilter,
  page: PageQuery,
): Promise<Page<NotifyRecord>> {
  const spec: ListSpec = {
    select: `${RECORD}, ${readByReader} as read`,
    // The reader ($2) is named in the from clause too, so that the count alone (an empty page) binds it.
    from: 'notify_records r join (select $2::text as user_id) reader on true',
    where: ['r.tenant_id = $1'],
    params: [tenantId, userId],
    sortable: recordSortBy,
    defaultSort: 'r.created_at',
  };
  const { where, params } = spec;
  if (filter.status) where.push(`r.status = ${param(params, filter.status)}`);
  if (filter.sendWay) where.push(`r.send_way = ${param(params, filter.sendWay)}`);
  if (filter.read !== undefined) where.push(`${readByReader} = ${param(params, filter.read)}`);
  if (filter.sn) where.push(`r.sn ilike ${param(params, `%${filter.sn}%`)}`);
  if (filter.alarmId) where.push(`r.alarm_id = ${param(params, filter.alarmId)}`);
  return pageRows<Fields<NotifyRecord>>(db, page, spec);
}

/** Whether any of the records is one of the tenant's. */
export async function anyNotifyRecordOf(db: Sql, tenantId: string, recordIds: string[]): Promise<boolean> {
  return (
    (await db.query('select 1 from notify_records where tenant_id = $1 and id::text = any($2) limit 1', [tenantId, recordIds])).rowCount > 0
  );
}

/** A user's inbox: how many of the tenant's in-app messages they have not read, and the latest ten. */
export async function inboxOf(db: Sql, tenantId: string, userId: string): Promise<{ unread: number; latest: NotifyRecord[] }> {
  const count = await db.query<{ n: number }>(
    `select count(*)::int as n from notify_records r where r.tenant_id = $1 and r.send_way = 'inApp' and not ${readByUser('r', '$1', '$2')}`,
    [tenantId, userId],
  );
  const latest = await db.query<NotifyRecord>(
    `select ${RECORD}, ${readByUser('r', '$1', '$2')} as read from notify_records r
     where r.tenant_id = $1 and r.send_way = 'inApp' order by r.created_at desc, r.id desc limit 10`,
    [tenantId, userId],
  );
  return { unread: count.rows[0]!.n, latest: latest.rows };
}

/** An alarm's device, the group that device is in now, and the alarm's level: what a live alarm feed is addressed by. */
export async function alarmAddress(db: Sql, alarmId: string): Promise<{ deviceId: string; groupId: string | null; level: number } | null> {
  const rows = await db.query<{ deviceId: string; groupId: string | null; level: number }>(
    `select a.device_id as "deviceId", d.group_id as "groupId", a.level from rm_alarms a left join rm_devices d on d.id = a.device_id
     where a.id = $1`,
    [alarmId],
  );
  return rows.rows[0] ?? null;
}

/** When each alarm rule of a tenant last raised an alarm (the rule list's last trigger). */
export async function lastAlarmOfRules(db: Sql, tenantId: string): Promise<Map<string, Date>> {
  const rows = await db.query<{ ruleId: string; at: Date }>(
    `select rule_id as "ruleId", max(raised_at) as at from rm_alarms where tenant_id = $1 and rule_id is not null group by rule_id`,
    [tenantId],
  );
  return new Map(rows.rows.map((r) => [r.ruleId, r.at]));
}

/** The email addresses of those of `contactIds` that are contacts of the tenant (a scheduled report's recipients). */
export async function contactAddresses(
  db: Sql,
  tenantId: string,
  contactIds: readonly string[],
): Promise<{ contactId: string; name: string; email: string }[]> {
  if (contactIds.length === 0) return [];
  const rows = await db.query<{ contactId: string; name: string; email: string }>(
    'select id as "contactId", name, email from rm_contacts where tenant_id = $1 and id = any($2) order by name',
    [tenantId, [...contactIds]],
  );
  return rows.rows;
}

// ---------------------------------------------------------------- alarm statistics (statistic tasks of data type alarm)

/** The start of the window of a cycle holding a local (zone-less) timestamp, in PostgreSQL: a week starts on Monday. */
const localWindow: Record<StatCycle, (x: string) => string> = {
  '10m': (x) => `date_bin('10 minutes', ${x}, timestamp '2000-01-01')`,
  '30m': (x) => `date_bin('30 minutes', ${x}, timestamp '2000-01-01')`,
  '1h': (x) => `date_trunc('hour', ${x})`,
  '12h': (x) => `date_bin('12 hours', ${x}, timestamp '2000-01-01')`,
  '1d': (x) => `date_trunc('day', ${x})`,
  '1w': (x) => `date_trunc('week', ${x})`,
  '1M': (x) => `date_trunc('month', ${x})`,
};
const alarmStatKey = { device: 'a.device_id', group: 'a.group_id', product: 'd.product_id', tenant: 'a.tenant_id' } as const;

/**
 * Alarm statistics folded in PostgreSQL: per window of `cycle` in `timeZone` that meets [from, to) (whole windows, as
 * the time-series statistics) and per key of the dimension, the alarms raised (`count`) or the distinct devices that
 * raised them (`distinctCount`). `variable` `*` counts every alarm; `productId` narrows to that product's devices.
 * The key of a group is the alarm's group when raised, of a product the device's product; alarms without one are left out.
 */
export async function alarmStatWindows(
  db: Sql,
  q: {
    tenantId: string;
    productId: string | null;
    variable: string;
    cycle: StatCycle;
    timeZone: string;
    dimension: keyof typeof alarmStatKey;
    distinct: boolean;
    from: Date;
    to: Date;
  },
): Promise<Array<{ windowStart: Date; key: string; value: number; samples: number }>> {
  const w = localWindow[q.cycle];
  const key = alarmStatKey[q.dimension];
  const rows = await db.query<{ windowStart: Date; key: string; value: number; samples: number }>(
    `select (w at time zone $6) as "windowStart", key, ${q.distinct ? 'count(distinct device_id)' : 'count(*)'}::int as value,
       count(*)::int as samples
     from (
       select ${w('(a.raised_at at time zone $6)')} as w, ${key} as key, a.device_id
       from rm_alarms a ${q.dimension === 'product' || q.productId ? 'left join rm_devices d on d.id = a.device_id' : ''}
       where a.tenant_id = $1 and a.raised_at >= $2::timestamptz - interval '32 days' and a.raised_at < $3::timestamptz + interval '32 days'
         ${q.productId ? 'and d.product_id = $4' : 'and $4::text is null'} and ($5 = '*' or a.variable = $5)
     ) x
     where key is not null and w >= ${w('($2::timestamptz at time zone $6)')}
       and w <= ${w(`(($3::timestamptz - interval '1 millisecond') at time zone $6)`)}
     group by w, key order by w, key`,
    [q.tenantId, q.from.toISOString(), q.to.toISOString(), q.productId, q.variable, q.timeZone],
  );
  return rows.rows;
}
