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
  type NotifyRecordRow,
  type NotifySecretKey,
} from '@iot/contracts';
import { callerOf, type Handlers, type RequestContext } from '@iot/contracts/http/handler.ts';
import type { z } from 'zod';
import { PassThrough } from 'node:stream';
import { excelJs } from '../shared/xlsx.ts';
import { rawAnswer } from '@iot/contracts/http/route.ts';
import {
  activeAlarmCounts,
  alarmById,
  alarmRulesPage,
  alarmsPage,
  contactsPage,
  inboxOf,
  notifyConfigsPage,
  notifyRecordsPage,
  notifySettingsOf,
  notifyTemplatesPage,
  type AlarmFilter,
  type AlarmRecord,
  type NotifyRecord,
} from '@iot/projections/alarm/read.ts';
import { usernamesById } from '@iot/projections/user/read.ts';
import { csvStream } from '../shared/csv.ts';
import { mapRows } from '../shared/paging.ts';

type AlarmQuery = z.output<AlarmRoutes['alarm.list']['query']>;

/** The group subtree a caller with a current station sees (spec §6 stationId); none: the whole tenant. */
async function stationScope(ctx: RequestContext): Promise<string[] | undefined> {
  const caller = callerOf(ctx);
  return caller.stationId ? ctx.ports.lookups.groupSubtree(caller.tenantId, caller.stationId) : undefined;
}

/** Alarms of the caller's tenant in the current group subtree, then the filters. */
async function alarmFilter(ctx: RequestContext, q: AlarmQuery): Promise<AlarmFilter> {
  return {
    status: q.tab === 'history' ? 'cleared' : 'active',
    groupIds: await stationScope(ctx),
    level: q.level,
    deviceId: q.deviceId,
    sn: q.sn,
    ruleId: q.ruleId,
    processed: q.processed,
    from: q.from,
    to: q.to,
  };
}

const toAlarmRow = ({ tenantId: _tenant, raisedAt, clearedAt, acknowledgedAt, processedAt, ...alarm }: AlarmRecord): AlarmRow => ({
  ...alarm,
  raisedAt: raisedAt.toISOString(),
  clearedAt: clearedAt?.toISOString() ?? null,
  acknowledged: acknowledgedAt !== null,
  acknowledgedAt: acknowledgedAt?.toISOString() ?? null,
  processed: processedAt !== null,
  processedAt: processedAt?.toISOString() ?? null,
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
const toRecordRow = ({ createdAt, sentAt, ...record }: NotifyRecord, lang: Lang): NotifyRecordRow => ({
  ...record,
  ...(record.summary ? stormSummaryText({ subject: record.subject, body: record.body }, lang) : {}),
  createTime: createdAt.toISOString(),
  sentAt: sentAt?.toISOString() ?? null,
});

/** The alarms of a list's filters, page after page (never all in memory), up to the export limit. */
async function* alarmRows(ctx: RequestContext, q: AlarmQuery): AsyncGenerator<AlarmRow> {
  const { tenantId } = callerOf(ctx);
  const filter = await alarmFilter(ctx, q);
  const pageSize = 2_000;
  for (let page = 1; (page - 1) * pageSize < EXPORT_LIMIT; page++) {
    const rows = await alarmsPage(ctx.ports.db, tenantId, filter, { ...q, page, pageSize });
    yield* rows.rows.map(toAlarmRow);
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
  const book = new (await excelJs()).stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
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
    return mapRows(await alarmsPage(ctx.ports.db, callerOf(ctx).tenantId, await alarmFilter(ctx, q), q), toAlarmRow);
  },

  async 'alarm.export'({ query: q }, ctx) {
    const name = `alarms-${q.tab}-${new Date().toISOString().slice(0, 10)}`;
    return q.format === 'xlsx'
      ? rawAnswer('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', alarmXlsx(alarmRows(ctx, q)), `${name}.xlsx`)
      : rawAnswer('text/csv; charset=utf-8', csvStream(exportColumns, alarmLines(alarmRows(ctx, q))), `${name}.csv`);
  },

  async 'alarm.detail'({ query }, ctx) {
    const caller = callerOf(ctx);
    const row = await alarmById(ctx.ports.db, caller.tenantId, query.id, await stationScope(ctx));
    if (!row) throw new DomainError('NOT_FOUND');
    const events = await ctx.ports.store.readStream(`alarm-${caller.tenantId}.${query.id}`);
    const userIds = [...new Set(events.filter((e) => e.metadata.actor.kind === 'user').map((e) => e.metadata.actor.id))];
    const names = await usernamesById(ctx.ports.db, userIds, caller.tenantId);
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
    const rows = await activeAlarmCounts(ctx.ports.db, callerOf(ctx).tenantId, await stationScope(ctx));
    return {
      byLevel: [1, 2, 3, 4, 5].map((level) => ({ level, count: rows.find((r) => r.level === level)?.count ?? 0 })),
      unprocessed: rows.reduce((n, r) => n + r.unprocessed, 0),
    };
  },

  async 'alarmRule.list'({ query: q }, ctx) {
    const page = await alarmRulesPage(
      ctx.ports.db,
      callerOf(ctx).tenantId,
      { name: q.name, productId: q.productId, deviceId: q.deviceId },
      q,
    );
    return mapRows(page, (r) => ({
      ...r.fields,
      id: r.id,
      productName: r.productName,
      deviceName: r.deviceName,
      cameraId: r.fields.cameraId ?? null,
      createTime: r.createdAt.toISOString(),
    }));
  },

  async 'contact.list'({ query: q }, ctx) {
    const page = await contactsPage(ctx.ports.db, callerOf(ctx).tenantId, { name: q.name }, q);
    return mapRows(page, ({ createdAt, ...contact }) => ({ ...contact, createTime: createdAt.toISOString() }));
  },

  async 'notifyTemplate.list'({ query: q }, ctx) {
    const page = await notifyTemplatesPage(ctx.ports.db, callerOf(ctx).tenantId, { name: q.name, type: q.type }, q);
    return mapRows(page, ({ createdAt, ...template }) => ({ ...template, createTime: createdAt.toISOString() }));
  },

  async 'notifyTemplate.preview'({ body }) {
    return { subject: renderTemplate(body.subject ?? '', sampleValues), content: renderTemplate(body.content, sampleValues) };
  },

  async 'notifyConfig.list'({ query: q }, ctx) {
    const page = await notifyConfigsPage(ctx.ports.db, callerOf(ctx).tenantId, { name: q.name }, q);
    return mapRows(page, ({ createdAt, ...config }) => ({ ...config, createTime: createdAt.toISOString() }));
  },

  async 'notifyRecord.list'({ query: q }, ctx) {
    const caller = callerOf(ctx);
    const filter = { status: q.status, sendWay: q.sendWay, read: q.read, sn: q.sn, alarmId: q.alarmId };
    const page = await notifyRecordsPage(ctx.ports.db, caller.tenantId, caller.id, filter, q);
    return mapRows(page, (record) => toRecordRow(record, ctx.lang));
  },

  async 'notify.settings'(_input, ctx) {
    const platform = ctx.ports.notifySettings;
    if (!platform) throw new DomainError('NOT_FOUND');
    const { tenantId } = callerOf(ctx);
    const row = await notifySettingsOf(ctx.ports.db, tenantId);
    const secrets =
      (
        await ctx.ports.db.query<{ secrets: Partial<Record<NotifySecretKey, string>> }>(
          'select secrets from notify_channel_secrets where tenant_id = $1',
          [tenantId],
        )
      ).rows[0]?.secrets ?? {};
    const tenant = {
      smtpFrom: row?.smtpFrom ?? null,
      smsEndpoint: row?.smsEndpoint ?? null,
      smsSignName: row?.smsSignName ?? null,
      smsTemplateCode: row?.smsTemplateCode ?? null,
      tenantPerMinute: row?.tenantPerMinute ?? null,
      contactPerMinute: row?.contactPerMinute ?? null,
      quietHours: row?.quietHours ?? null,
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
    const { unread, latest } = await inboxOf(ctx.ports.db, tenantId, userId);
    return { unread, latest: latest.map((record) => toRecordRow(record, ctx.lang)) };
  },
};
