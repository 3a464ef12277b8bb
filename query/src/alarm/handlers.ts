import type { Lang } from '@iot/contracts';
import { stormSummaryText } from '@iot/contracts/alarm/storm-summary.ts';
import {
  DomainError,
  notifySecretKeys,
  renderTemplate,
  sampleValues,
  tenantChannelKinds,
  type AlarmRoutes,
  type AlarmRow,
  type AlarmTimelineEntry,
  type NotifySecretKey,
  type QuietHours,
} from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import type { z } from 'zod';
import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import { rawAnswer } from '@iot/contracts/http/route.ts';
import { readByUser } from '@iot/projections/alarm/outbox.ts';
import { csvStream } from '../shared/csv.ts';
import { iso, isoOrNull, pageOf, param, type ListSpec } from '../shared/paging.ts';

type AlarmQuery = z.output<AlarmRoutes['alarm.list']['query']>;

/** Alarms of the caller's tenant in the current group subtree (spec §6 stationId), then the filters. */
async function alarmSpec(ctx: RequestContext, q: AlarmQuery): Promise<ListSpec> {
  const caller = callerOf(ctx);
  const spec: ListSpec = {
    select: '*',
    from: 'rm_alarms a',
    where: ['a.tenant_id = $1', `a.status = ${q.tab === 'history' ? "'cleared'" : "'active'"}`],
    params: [caller.tenantId],
    sortable: { raisedAt: 'a.raised_at', level: 'a.level', clearedAt: 'a.cleared_at' },
    defaultSort: 'a.raised_at',
  };
  if (caller.stationId)
    spec.where.push(`a.group_id = any(${param(spec.params, await ctx.ports.lookups.groupSubtree(caller.tenantId, caller.stationId))})`);
  if (q.level) spec.where.push(`a.level = ${param(spec.params, q.level)}`);
  if (q.deviceId) spec.where.push(`a.device_id = ${param(spec.params, q.deviceId)}`);
  if (q.sn) spec.where.push(`a.sn ilike ${param(spec.params, `%${q.sn}%`)}`);
  if (q.ruleId) spec.where.push(`a.rule_id = ${param(spec.params, q.ruleId)}`);
  if (q.processed !== undefined) spec.where.push(q.processed ? 'a.processed_at is not null' : 'a.processed_at is null');
  if (q.from) spec.where.push(`a.raised_at >= ${param(spec.params, q.from)}`);
  if (q.to) spec.where.push(`a.raised_at < ${param(spec.params, q.to)}`);
  return spec;
}

const toAlarmRow = (r: Record<string, unknown>): AlarmRow => ({
  id: r.id as string,
  ruleId: (r.rule_id as string | null) ?? null,
  ruleName: (r.rule_name as string | null) ?? null,
  deviceId: r.device_id as string,
  deviceName: (r.device_name as string | null) ?? null,
  sn: (r.sn as string | null) ?? null,
  groupId: (r.group_id as string | null) ?? null,
  variable: (r.variable as string | null) ?? null,
  type: r.type as AlarmRow['type'],
  category: (r.category as string | null) ?? null,
  mode: (r.mode as AlarmRow['mode']) ?? null,
  level: r.level as number,
  trigger: r.trigger as AlarmRow['trigger'],
  threshold: (r.threshold as string | null) ?? null,
  value: (r.value as number | null) ?? null,
  text: (r.text as string | null) ?? null,
  faultFlag: r.fault_flag as boolean,
  cause: (r.cause as string | null) ?? null,
  suggestion: (r.suggestion as string | null) ?? null,
  status: r.status as AlarmRow['status'],
  count: r.count as number,
  raisedAt: iso(r.raised_at),
  clearedAt: isoOrNull(r.cleared_at),
  clearedBy: (r.cleared_by as string | null) ?? null,
  acknowledged: r.acknowledged_at != null,
  acknowledgedBy: (r.acknowledged_by as string | null) ?? null,
  acknowledgedAt: isoOrNull(r.acknowledged_at),
  processed: r.processed_at != null,
  processNote: (r.process_note as string | null) ?? null,
  processedBy: (r.processed_by as string | null) ?? null,
  processedAt: isoOrNull(r.processed_at),
  ticketId: (r.ticket_id as string | null) ?? null,
});

const EXPORT_LIMIT = 100_000;
const exportColumns = [
  'id',
  'sn',
  'deviceName',
  'ruleName',
  'variable',
  'type',
  'category',
  'level',
  'trigger',
  'threshold',
  'value',
  'status',
  'count',
  'raisedAt',
  'clearedAt',
  'acknowledgedBy',
  'processedBy',
  'processNote',
  'ticketId',
] as const;

// A storm summary is written in both languages; its reader reads it in theirs.
const recordRow = (r: Record<string, unknown>, lang: Lang) => ({
  id: String(r.id),
  groupId: (r.group_id as string | null) ?? null,
  status: r.status as 'unsent' | 'sent' | 'failed',
  error: (r.error as string | null) ?? null,
  attempts: r.attempts as number,
  sendWay: r.send_way as 'sms' | 'email' | 'inApp' | 'wechat',
  type: r.type as string,
  recipient: r.recipient as string,
  contactName: (r.contact_name as string | null) ?? null,
  ...(r.summary
    ? stormSummaryText({ subject: r.subject as string, body: r.body as string }, lang)
    : { subject: r.subject as string, body: r.body as string }),
  alarmId: (r.alarm_id as string | null) ?? null,
  ticketId: (r.ticket_id as string | null) ?? null,
  sn: (r.sn as string | null) ?? null,
  read: r.read as boolean,
  summary: r.summary as boolean,
  createTime: iso(r.created_at),
  sentAt: isoOrNull(r.sent_at),
  via: (r.via as string | null) ?? null,
});

/** The alarms of a list's filters, page after page (never all in memory), up to the export limit. */
async function* alarmRows(ctx: RequestContext, q: AlarmQuery): AsyncGenerator<AlarmRow> {
  const spec = await alarmSpec(ctx, q);
  const pageSize = 2_000;
  for (let page = 1; (page - 1) * pageSize < EXPORT_LIMIT; page++) {
    const rows = await pageOf(ctx.ports.db, { ...q, page, pageSize }, spec, toAlarmRow);
    yield* rows.rows;
    if (rows.rows.length < pageSize) return;
  }
}
const exportCell = (row: AlarmRow, column: (typeof exportColumns)[number]) => {
  const v = row[column];
  return v === null || v === undefined ? '' : v;
};

async function* alarmLines(rows: AsyncIterable<AlarmRow>) {
  for await (const row of rows) yield exportColumns.map((c) => String(exportCell(row, c)));
}

async function* alarmXlsx(rows: AsyncIterable<AlarmRow>) {
  const out = new PassThrough();
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
  const sheet = book.addWorksheet('alarms');
  sheet.columns = exportColumns.map((c) => ({ header: c, key: c, width: c === 'processNote' ? 32 : 18 }));
  const writing = (async () => {
    for await (const row of rows) sheet.addRow(Object.fromEntries(exportColumns.map((c) => [c, exportCell(row, c)]))).commit();
    sheet.commit();
    await book.commit();
  })();
  for await (const chunk of out) yield chunk as Uint8Array;
  await writing;
}

type AlarmReads =
  | 'alarm.list'
  | 'alarm.detail'
  | 'alarm.export'
  | 'alarm.counts'
  | 'alarmRule.list'
  | 'contact.list'
  | 'notifyTemplate.list'
  | 'notifyTemplate.preview'
  | 'notifyConfig.list'
  | 'notifyRecord.list'
  | 'notifyRecord.unread'
  | 'notify.settings';

/** Reads of the fault-alarm screens (issue 12). */
export const alarmQueryHandlers: Pick<Handlers<AlarmRoutes>, AlarmReads> = {
  async 'alarm.list'({ query: q }, ctx) {
    return pageOf(ctx.ports.db, q, await alarmSpec(ctx, q), toAlarmRow);
  },

  async 'alarm.export'({ query: q }, ctx) {
    const name = `alarms-${q.tab}-${new Date().toISOString().slice(0, 10)}`;
    return q.format === 'xlsx'
      ? rawAnswer('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', alarmXlsx(alarmRows(ctx, q)), `${name}.xlsx`)
      : rawAnswer('text/csv; charset=utf-8', csvStream(exportColumns, alarmLines(alarmRows(ctx, q))), `${name}.csv`);
  },

  async 'alarm.detail'({ query }, ctx) {
    const caller = callerOf(ctx);
    const params: unknown[] = [caller.tenantId, query.id];
    const scope = caller.stationId
      ? `and group_id = any(${param(params, await ctx.ports.lookups.groupSubtree(caller.tenantId, caller.stationId))})`
      : '';
    const row = (await ctx.ports.db.query(`select * from rm_alarms where tenant_id = $1 and id = $2 ${scope}`, params)).rows[0];
    if (!row) throw new DomainError('NOT_FOUND');
    const events = await ctx.ports.store.readStream(`alarm-${caller.tenantId}.${query.id}`);
    const userIds = [...new Set(events.filter((e) => e.metadata.actor.kind === 'user').map((e) => e.metadata.actor.id))];
    const names = new Map(
      (
        await ctx.ports.db.query<{ id: string; username: string }>(
          'select id, username from rm_users where tenant_id = $1 and id = any($2)',
          [caller.tenantId, userIds],
        )
      ).rows.map((u) => [u.id, u.username]),
    );
    const timeline = events.map((e): AlarmTimelineEntry => {
      const d = e.data as Record<string, unknown>;
      const actor = e.metadata.actor;
      return {
        type: e.type as AlarmTimelineEntry['type'],
        at: e.metadata.occurredAt,
        actorKind: actor.kind,
        actorId: actor.id,
        actorName: actor.kind === 'user' ? (names.get(actor.id) ?? null) : null,
        value: typeof d.value === 'number' ? d.value : null,
        text: typeof d.text === 'string' ? d.text : null,
        measuredAt: typeof d.at === 'string' ? d.at : null,
        note: typeof d.note === 'string' ? d.note : null,
        count: typeof d.count === 'number' ? d.count : null,
        auto: typeof d.auto === 'boolean' ? d.auto : null,
        ticketId: typeof d.ticketId === 'string' ? d.ticketId : null,
      };
    });
    return { alarm: toAlarmRow(row), timeline };
  },

  async 'alarm.counts'(_input, ctx) {
    const caller = callerOf(ctx);
    const params: unknown[] = [caller.tenantId];
    const scope = caller.stationId
      ? `and group_id = any(${param(params, await ctx.ports.lookups.groupSubtree(caller.tenantId, caller.stationId))})`
      : '';
    const rows = await ctx.ports.db.query<{ level: number; count: number; unprocessed: number }>(
      `select level, count(*)::int as count, count(*) filter (where processed_at is null)::int as unprocessed
       from rm_alarms where tenant_id = $1 and status = 'active' ${scope} group by level order by level`,
      params,
    );
    return {
      byLevel: [1, 2, 3, 4, 5].map((level) => ({ level, count: rows.rows.find((r) => r.level === level)?.count ?? 0 })),
      unprocessed: rows.rows.reduce((n, r) => n + r.unprocessed, 0),
    };
  },

  async 'alarmRule.list'({ query: q }, ctx) {
    const spec: ListSpec = {
      select: 'r.*, p.name as product_name, d.name as device_name',
      from: 'rm_alarm_rules r left join rm_products p on p.id = r.product_id left join rm_devices d on d.id = r.device_id',
      where: ['r.tenant_id = $1'],
      params: [callerOf(ctx).tenantId],
      sortable: { createTime: 'r.created_at', name: 'lower(r.name)', level: 'r.level' },
      defaultSort: 'r.created_at',
    };
    if (q.name) spec.where.push(`r.name ilike ${param(spec.params, `%${q.name}%`)}`);
    if (q.productId) spec.where.push(`r.product_id = ${param(spec.params, q.productId)}`);
    if (q.deviceId) spec.where.push(`r.device_id = ${param(spec.params, q.deviceId)}`);
    return pageOf(ctx.ports.db, q, spec, (r) => {
      const f = r.fields as Record<string, unknown>;
      return {
        ...(f as object),
        id: r.id as string,
        productName: (r.product_name as string | null) ?? null,
        deviceName: (r.device_name as string | null) ?? null,
        createTime: iso(r.created_at),
      } as z.output<AlarmRoutes['alarmRule.list']['response']>['rows'][number];
    });
  },

  async 'contact.list'({ query: q }, ctx) {
    const spec: ListSpec = {
      select: '*',
      from: 'rm_contacts',
      where: ['tenant_id = $1'],
      params: [callerOf(ctx).tenantId],
      sortable: { createTime: 'created_at', name: 'lower(name)' },
      defaultSort: 'created_at',
    };
    if (q.name) spec.where.push(`name ilike ${param(spec.params, `%${q.name}%`)}`);
    return pageOf(ctx.ports.db, q, spec, (r) => ({
      id: r.id as string,
      name: r.name as string,
      phone: (r.phone as string | null) ?? null,
      email: r.email as string,
      emailActivated: r.email_activated as boolean,
      wechat: (r.wechat as string | null) ?? null,
      remark: (r.remark as string | null) ?? null,
      createTime: iso(r.created_at),
    }));
  },

  async 'notifyTemplate.list'({ query: q }, ctx) {
    const spec: ListSpec = {
      select: '*',
      from: 'rm_notify_templates',
      where: ['tenant_id = $1'],
      params: [callerOf(ctx).tenantId],
      sortable: { createTime: 'created_at', name: 'lower(name)', code: 'code' },
      defaultSort: 'created_at',
    };
    if (q.name) spec.where.push(`(name ilike ${param(spec.params, `%${q.name}%`)} or code ilike $${spec.params.length})`);
    if (q.type) spec.where.push(`type = ${param(spec.params, q.type)}`);
    return pageOf(ctx.ports.db, q, spec, (r) => ({
      id: r.id as string,
      code: r.code as string,
      name: r.name as string,
      type: r.type as 'sms' | 'email' | 'wechat',
      subject: (r.subject as string | null) ?? null,
      content: r.content as string,
      createTime: iso(r.created_at),
    }));
  },

  async 'notifyTemplate.preview'({ body }) {
    return { subject: renderTemplate(body.subject ?? '', sampleValues), content: renderTemplate(body.content, sampleValues) };
  },

  async 'notifyConfig.list'({ query: q }, ctx) {
    const spec: ListSpec = {
      select: `c.*, g.name as group_name, t.name as template_name,
        array(select k.name from rm_contacts k where k.id = any(c.contact_ids) order by k.name) as contact_names`,
      from: 'rm_notify_configs c left join rm_groups g on g.id = c.group_id left join rm_notify_templates t on t.id = c.template_id',
      where: ['c.tenant_id = $1'],
      params: [callerOf(ctx).tenantId],
      sortable: { createTime: 'c.created_at', name: 'lower(c.name)' },
      defaultSort: 'c.created_at',
    };
    if (q.name) spec.where.push(`c.name ilike ${param(spec.params, `%${q.name}%`)}`);
    return pageOf(ctx.ports.db, q, spec, (r) => ({
      id: r.id as string,
      name: r.name as string,
      source: r.source as 'alarm' | 'userAction' | 'systemTask',
      groupId: (r.group_id as string | null) ?? null,
      groupName: (r.group_name as string | null) ?? null,
      type: r.type as 'sms' | 'email' | 'wechat',
      templateId: r.template_id as string,
      templateName: (r.template_name as string | null) ?? null,
      sendWays: r.send_ways as ('sms' | 'email' | 'inApp')[],
      contactIds: r.contact_ids as string[],
      contactNames: r.contact_names as string[],
      minLevel: r.min_level as number,
      status: r.status as 'enabled' | 'stopped',
      createTime: iso(r.created_at),
    }));
  },

  async 'notifyRecord.list'({ query: q }, ctx) {
    const caller = callerOf(ctx);
    // Read marks are the caller's own (in-app messages only).
    const read = `(r.send_way = 'inApp' and ${readByUser('r', '$1', '$2')})`;
    const spec: ListSpec = {
      select: `r.*, ${read} as read_by_me`,
      // The caller ($2) is named in the from clause too, so that the count alone (an empty page) binds it.
      from: 'notify_records r join (select $2::text as user_id) caller on true',
      where: ['r.tenant_id = $1'],
      params: [caller.tenantId, caller.id],
      sortable: { createTime: 'r.created_at', status: 'r.status' },
      defaultSort: 'r.created_at',
    };
    if (q.status) spec.where.push(`r.status = ${param(spec.params, q.status)}`);
    if (q.sendWay) spec.where.push(`r.send_way = ${param(spec.params, q.sendWay)}`);
    if (q.read !== undefined) spec.where.push(`${read} = ${param(spec.params, q.read)}`);
    if (q.sn) spec.where.push(`r.sn ilike ${param(spec.params, `%${q.sn}%`)}`);
    if (q.alarmId) spec.where.push(`r.alarm_id = ${param(spec.params, q.alarmId)}`);
    return pageOf(ctx.ports.db, q, spec, (row) => ({ ...recordRow(row, ctx.lang), read: row.read_by_me as boolean }));
  },

  async 'notify.settings'(_input, ctx) {
    const platform = ctx.ports.notifySettings;
    if (!platform) throw new DomainError('NOT_FOUND');
    const { tenantId } = callerOf(ctx);
    const row = (
      await ctx.ports.db.query<{
        smtp_from: string | null;
        sms_endpoint: string | null;
        sms_sign_name: string | null;
        sms_template_code: string | null;
        tenant_per_min: number | null;
        contact_per_min: number | null;
        quiet_hours: QuietHours | null;
      }>('select * from rm_notify_settings where tenant_id = $1', [tenantId])
    ).rows[0];
    const secrets =
      (
        await ctx.ports.db.query<{ secrets: Partial<Record<NotifySecretKey, string>> }>(
          'select secrets from notify_channel_secrets where tenant_id = $1',
          [tenantId],
        )
      ).rows[0]?.secrets ?? {};
    const tenant = {
      smtpFrom: row?.smtp_from ?? null,
      smsEndpoint: row?.sms_endpoint ?? null,
      smsSignName: row?.sms_sign_name ?? null,
      smsTemplateCode: row?.sms_template_code ?? null,
      tenantPerMinute: row?.tenant_per_min ?? null,
      contactPerMinute: row?.contact_per_min ?? null,
      quietHours: row?.quiet_hours ?? null,
      secrets: Object.fromEntries(notifySecretKeys.map((k) => [k, !!secrets[k]])) as Record<NotifySecretKey, boolean>,
    };
    const own = tenantChannelKinds(tenant, secrets);
    // Only a host is shown of a tenant's URL: its user, password, path and query may carry a key.
    const host = (url: string | null | undefined) => {
      try {
        return url ? new URL(url).host : null;
      } catch {
        return null;
      }
    };
    const targets = { email: secrets.smtpUrl, sms: tenant.smsEndpoint, wechat: secrets.wecomWebhook, dingtalk: secrets.dingtalkWebhook };
    return {
      ...platform,
      channels: platform.channels.map((c) =>
        c.kind !== 'inApp' && own[c.kind]
          ? { ...c, configured: true, source: 'tenant' as const, target: host(targets[c.kind]) }
          : { ...c, source: c.kind === 'inApp' ? null : c.configured ? ('platform' as const) : null },
      ),
      tenantPerMinute: tenant.tenantPerMinute ?? platform.tenantPerMinute,
      contactPerMinute: tenant.contactPerMinute ?? platform.contactPerMinute,
      tenant,
    };
  },

  /** The caller's own inbox: the tenant's in-app messages with the caller's read marks. */
  async 'notifyRecord.unread'(_input, ctx) {
    const { tenantId, id: userId } = callerOf(ctx);
    const { db } = ctx.ports;
    const count = await db.query<{ n: number }>(
      `select count(*)::int as n from notify_records r where r.tenant_id = $1 and r.send_way = 'inApp' and not ${readByUser('r', '$1', '$2')}`,
      [tenantId, userId],
    );
    const latest = await db.query(
      `select r.*, ${readByUser('r', '$1', '$2')} as read_by_me from notify_records r
       where r.tenant_id = $1 and r.send_way = 'inApp' order by r.created_at desc, r.id desc limit 10`,
      [tenantId, userId],
    );
    return { unread: count.rows[0]!.n, latest: latest.rows.map((r) => ({ ...recordRow(r, ctx.lang), read: r.read_by_me as boolean })) };
  },
};
