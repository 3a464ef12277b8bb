import type {
  EnabledStatus,
  LinkageActionResult,
  LinkageConditionResult,
  LinkageResult,
  Page,
  PageQuery,
  SceneAction,
  SceneCondition,
  SceneTrigger,
  SceneTriggerType,
  linkageLogSortable,
  sceneSortable,
} from '@iot/contracts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { pageRows, param, type ListSpec } from '../shared/page.ts';

/** A scene as the scenes projection keeps it (rm_scenes). */
export type SceneRecord = {
  id: string;
  tenantId: string;
  name: string;
  description: string | null;
  status: EnabledStatus;
  triggers: SceneTrigger[];
  conditionMode: 'all' | 'any';
  conditions: SceneCondition[];
  actions: SceneAction[];
  lastRunAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

const SCENE = `id, tenant_id as "tenantId", name, description, status, triggers, condition_mode as "conditionMode", conditions,
  actions, last_run_at as "lastRunAt", created_at as "createdAt", updated_at as "updatedAt"`;

/** A scene of a tenant, by id. */
export async function sceneById(db: Sql, tenantId: string, id: string): Promise<SceneRecord | null> {
  return (await db.query<SceneRecord>(`select ${SCENE} from rm_scenes where id = $1 and tenant_id = $2`, [id, tenantId])).rows[0] ?? null;
}

export interface SceneFilter {
  /** A part of the name, any case. */
  name?: string;
  status?: EnabledStatus;
}
const sortBy = { createTime: 'created_at', name: 'lower(name)' } satisfies Record<(typeof sceneSortable)[number], string>;

/** A page of a tenant's scenes, newest first unless told. */
export async function scenesPage(db: Sql, tenantId: string, filter: SceneFilter, page: PageQuery): Promise<Page<SceneRecord>> {
  const spec: ListSpec = {
    select: SCENE,
    from: 'rm_scenes',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: sortBy,
    defaultSort: 'created_at',
  };
  const { where, params } = spec;
  if (filter.name) where.push(`name ilike ${param(params, `%${filter.name}%`)}`);
  if (filter.status) where.push(`status = ${param(params, filter.status)}`);
  return pageRows<SceneRecord>(db, page, spec);
}

/** Every enabled scene of every tenant with a trigger of this type: what the scheduler and the device reactor watch. */
export async function enabledScenesWith(db: Sql, triggerType: SceneTriggerType): Promise<SceneRecord[]> {
  return (
    await db.query<SceneRecord>(`select ${SCENE} from rm_scenes where status = 'enabled' and triggers @> $1::jsonb order by created_at`, [
      JSON.stringify([{ type: triggerType }]),
    ])
  ).rows;
}

/** How many runs of a scene did something: the turn of its rotations. */
export async function sceneRunsDone(db: Sql, tenantId: string, sceneId: string): Promise<number> {
  return (
    await db.query<{ n: number }>(
      `select count(*)::int as n from rm_scene_log where tenant_id = $1 and scene_id = $2 and result in ('success', 'partial', 'failed')`,
      [tenantId, sceneId],
    )
  ).rows[0]!.n;
}

/** One run of the linkage log (rm_scene_log). */
export type LinkageLogRecord = {
  id: string;
  sceneId: string;
  sceneName: string;
  triggerType: SceneTriggerType;
  triggerContent: string;
  conditions: LinkageConditionResult[];
  actions: LinkageActionResult[];
  result: LinkageResult;
  durationMs: number;
  at: Date;
};
const LOG = `id, scene_id as "sceneId", scene_name as "sceneName", trigger_type as "triggerType", trigger_content as "triggerContent",
  conditions, actions, result, duration_ms as "durationMs", at`;
export interface LinkageLogFilter {
  sceneId?: string;
  result?: LinkageResult;
  triggerType?: SceneTriggerType;
  /** Runs at or after. */
  from?: string;
  /** Runs before. */
  to?: string;
}
const logSortBy = { time: 'at', durationMs: 'duration_ms' } satisfies Record<(typeof linkageLogSortable)[number], string>;

function logSpec(tenantId: string, filter: LinkageLogFilter): ListSpec {
  const spec: ListSpec = {
    select: LOG,
    from: 'rm_scene_log',
    where: ['tenant_id = $1'],
    params: [tenantId],
    sortable: logSortBy,
    defaultSort: 'at',
  };
  const { where, params } = spec;
  if (filter.sceneId) where.push(`scene_id = ${param(params, filter.sceneId)}`);
  if (filter.result) where.push(`result = ${param(params, filter.result)}`);
  if (filter.triggerType) where.push(`trigger_type = ${param(params, filter.triggerType)}`);
  if (filter.from) where.push(`at >= ${param(params, filter.from)}`);
  if (filter.to) where.push(`at < ${param(params, filter.to)}`);
  return spec;
}

/** A page of a tenant's linkage log, newest first unless told. */
export async function linkageLogPage(
  db: Sql,
  tenantId: string,
  filter: LinkageLogFilter,
  page: PageQuery,
): Promise<Page<LinkageLogRecord>> {
  return pageRows<LinkageLogRecord>(db, page, logSpec(tenantId, filter));
}

/** Every run of the log under the filter, a page at a time (the export): at most `limit`. */
export async function* linkageLogRows(
  db: Sql,
  tenantId: string,
  filter: LinkageLogFilter,
  sort: Pick<PageQuery, 'sort' | 'order'>,
  limit = 100_000,
) {
  const pageSize = 1000;
  for (let page = 1; (page - 1) * pageSize < limit; page++) {
    const { rows } = await linkageLogPage(db, tenantId, filter, { ...sort, page, pageSize } as PageQuery);
    yield* rows;
    if (rows.length < pageSize) return;
  }
}
