import { PassThrough } from 'node:stream';
import { excelJs } from '../shared/xlsx.ts';
import {
  DomainError,
  type LinkageLogRow,
  type RuleListRow,
  type SceneAction,
  type SceneCondition,
  type SceneRoutes,
  type SceneRow,
} from '@iot/contracts';
import { callerOf, type Handlers } from '@iot/contracts/http/handler.ts';
import { rawAnswer } from '@iot/contracts/http/route.ts';
import { alarmRulesPage, lastAlarmOfRules } from '@iot/projections/alarm/read.ts';
import { chainLastRuns, ruleChainsPage } from '@iot/projections/rule/read.ts';
import {
  linkageLogPage,
  linkageLogRows,
  sceneById,
  scenesPage,
  type LinkageLogFilter,
  type LinkageLogRecord,
  type SceneRecord,
} from '@iot/projections/scene/read.ts';
import { csvStream } from '../shared/csv.ts';

/** Rules of each kind the rule list reads at most: a tenant with more pages within the kind's own screen. */
const RULES_PER_KIND = 500;

const toSceneRow = (s: SceneRecord): SceneRow => ({
  id: s.id,
  name: s.name,
  description: s.description,
  status: s.status,
  triggers: s.triggers,
  conditionMode: s.conditionMode,
  conditions: s.conditions,
  actions: s.actions,
  lastRunTime: s.lastRunAt?.toISOString() ?? null,
  createTime: s.createdAt.toISOString(),
  updateTime: s.updatedAt.toISOString(),
});

const toLogRow = ({ at, ...r }: LinkageLogRecord): LinkageLogRow => ({ ...r, time: at.toISOString() });

/** A condition in one line of the export. */
export function conditionText(c: SceneCondition): string {
  switch (c.type) {
    case 'deviceStatus':
      return `${c.deviceId} ${c.status}`;
    case 'deviceProperty':
      return `${c.deviceId}.${c.identifier} ${c.operator} ${String(c.value)}`;
    case 'time':
      return `${c.from}-${c.to}${c.weekdays.length ? ` [${c.weekdays.join(',')}]` : ''} ${c.timeZone}`;
  }
}

/** An action in one line of the export. */
export function actionText(a: SceneAction): string {
  switch (a.type) {
    case 'setProperty':
      return `${a.deviceId}.${a.identifier} := ${JSON.stringify(a.value)}`;
    case 'invokeService':
      return `${a.deviceId}.${a.identifier}(${JSON.stringify(a.params)})`;
    case 'rotation':
      return `rotation ${a.identifier} over ${a.deviceIds.join(',')}`;
    case 'sceneStatus':
      return `scene ${a.sceneId} ${a.status}`;
    case 'notify':
      return `notify ${a.configId}${a.deviceId ? ` (${a.deviceId})` : ''}`;
  }
}

const exportColumns = ['time', 'sceneName', 'triggerType', 'triggerContent', 'conditions', 'actions', 'result', 'durationMs'] as const;
const exportLine = (r: LinkageLogRow): string[] => [
  r.time,
  r.sceneName,
  r.triggerType,
  r.triggerContent,
  r.conditions.map((c) => `${conditionText(c.condition as SceneCondition)}: ${c.result}`).join('; '),
  r.actions
    .map((a) => `${actionText(a.action as SceneAction)}${a.target ? ` -> ${a.target}` : ''}: ${a.ok ? 'ok' : (a.error ?? 'failed')}`)
    .join('; '),
  r.result,
  String(r.durationMs),
];

async function* lines(rows: AsyncIterable<LinkageLogRecord>) {
  for await (const row of rows) yield exportLine(toLogRow(row));
}

async function* xlsx(rows: AsyncIterable<LinkageLogRecord>) {
  const out = new PassThrough();
  const book = new (await excelJs()).stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
  const sheet = book.addWorksheet('linkage log');
  sheet.columns = exportColumns.map((c) => ({ header: c, key: c, width: c === 'conditions' || c === 'actions' ? 48 : 20 }));
  const writing = (async () => {
    for await (const line of lines(rows)) sheet.addRow(line).commit();
    sheet.commit();
    await book.commit();
  })();
  for await (const chunk of out) yield chunk as Uint8Array;
  await writing;
}

const logFilter = (q: LinkageLogFilter): LinkageLogFilter => ({
  sceneId: q.sceneId,
  result: q.result,
  triggerType: q.triggerType,
  from: q.from,
  to: q.to,
});

/** Scenes, the linkage log and the rule list (issue 19). */
export const sceneQueryHandlers: Pick<
  Handlers<SceneRoutes>,
  'scene.list' | 'scene.detail' | 'linkageLog.list' | 'linkageLog.export' | 'rule.list'
> = {
  async 'scene.list'({ query: q }, ctx) {
    const page = await scenesPage(ctx.ports.db, callerOf(ctx).tenantId, { name: q.name, status: q.status }, q);
    return { ...page, rows: page.rows.map(toSceneRow) };
  },

  async 'scene.detail'({ query }, ctx) {
    const scene = await sceneById(ctx.ports.db, callerOf(ctx).tenantId, query.id);
    if (!scene) throw new DomainError('NOT_FOUND');
    return toSceneRow(scene);
  },

  async 'linkageLog.list'({ query: q }, ctx) {
    const page = await linkageLogPage(ctx.ports.db, callerOf(ctx).tenantId, logFilter(q), q);
    return { ...page, rows: page.rows.map(toLogRow) };
  },

  async 'linkageLog.export'({ query: q }, ctx) {
    const rows = linkageLogRows(ctx.ports.db, callerOf(ctx).tenantId, logFilter(q), q);
    const name = `linkage-log-${new Date().toISOString().slice(0, 10)}`;
    return q.format === 'xlsx'
      ? rawAnswer('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', xlsx(rows), `${name}.xlsx`)
      : rawAnswer('text/csv; charset=utf-8', csvStream(exportColumns, lines(rows)), `${name}.csv`);
  },

  /**
   * One list of every rule of the tenant: alarm rules (with the time of the latest alarm each raised), rule chains
   * (always running; the running version) and scenes (with their latest run), filtered, sorted and paged together.
   */
  async 'rule.list'({ query: q }, ctx) {
    const { tenantId } = callerOf(ctx);
    const db = ctx.ports.db;
    const all = { page: 1, pageSize: RULES_PER_KIND, order: 'desc' as const };
    const rows: RuleListRow[] = [];
    if (!q.kind || q.kind === 'alarmRule') {
      const [rules, last] = await Promise.all([alarmRulesPage(db, tenantId, { name: q.name }, all), lastAlarmOfRules(db, tenantId)]);
      for (const r of rules.rows)
        rows.push({
          kind: 'alarmRule',
          id: r.id,
          name: r.fields.name,
          status: r.fields.status,
          summary: `${r.productName ?? r.fields.productId}${r.deviceName ? ` / ${r.deviceName}` : ''}: ${r.fields.variable} ${r.fields.mode}`,
          lastTriggerTime: last.get(r.id)?.toISOString() ?? null,
          updateTime: r.createdAt.toISOString(),
        });
    }
    if (!q.kind || q.kind === 'ruleChain') {
      const [chains, last] = await Promise.all([ruleChainsPage(db, tenantId, { name: q.name }, all), chainLastRuns(db, tenantId)]);
      for (const c of chains.rows)
        rows.push({
          kind: 'ruleChain',
          id: c.id,
          name: c.name,
          status: 'enabled',
          summary: `${c.root ? 'root, ' : ''}v${c.runningVersion}/${c.latestVersion}, ${c.nodeCount} nodes`,
          lastTriggerTime: last.get(c.id)?.toISOString() ?? null,
          updateTime: c.updatedAt.toISOString(),
        });
    }
    if (!q.kind || q.kind === 'scene') {
      for (const s of (await scenesPage(db, tenantId, { name: q.name }, all)).rows)
        rows.push({
          kind: 'scene',
          id: s.id,
          name: s.name,
          status: s.status,
          summary: [...new Set(s.triggers.map((t) => t.type))].join(', '),
          lastTriggerTime: s.lastRunAt?.toISOString() ?? null,
          updateTime: s.updatedAt.toISOString(),
        });
    }
    const kept = q.status ? rows.filter((r) => r.status === q.status) : rows;
    const key = q.sort ?? 'updateTime';
    const sign = q.order === 'asc' ? 1 : -1;
    kept.sort((a, b) => {
      const x = key === 'name' ? a.name.toLowerCase() : (a[key] ?? '');
      const y = key === 'name' ? b.name.toLowerCase() : (b[key] ?? '');
      return x < y ? -sign : x > y ? sign : 0;
    });
    return { rows: kept.slice((q.page - 1) * q.pageSize, q.page * q.pageSize), total: kept.length, page: q.page, pageSize: q.pageSize };
  },
};
