import type { SceneRunEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** The linkage log (spec §3): one row per run, written when it starts and completed when it finishes. */
export const sceneLogProjection = projection<SceneRunEvent>({
  name: 'sceneLog',
  handles: ['SceneRunStarted', 'SceneRunFinished'],
  tables: ['rm_scene_log'],
  schema: `
    create table rm_scene_log (
      id text primary key,
      tenant_id text not null,
      scene_id text not null,
      scene_name text not null,
      trigger_type text not null,
      trigger_content text not null,
      conditions jsonb not null default '[]',
      actions jsonb not null default '[]',
      result text not null,
      duration_ms int not null default 0,
      at timestamptz not null
    );
    create index rm_scene_log_tenant on rm_scene_log (tenant_id, at desc);
    create index rm_scene_log_scene on rm_scene_log (tenant_id, scene_id, at desc);`,
  async apply(tx, event) {
    const d = event.data;
    switch (event.type) {
      case 'SceneRunStarted':
        await tx.query(
          `insert into rm_scene_log (id, tenant_id, scene_id, scene_name, trigger_type, trigger_content, result, at)
           values ($1, $2, $3, $4, $5, $6, 'running', $7) on conflict (id) do nothing`,
          [
            d.runId,
            event.metadata.tenantId,
            d.sceneId,
            event.data.sceneName,
            event.data.triggerType,
            event.data.triggerContent,
            event.metadata.occurredAt,
          ],
        );
        return;
      case 'SceneRunFinished':
        await tx.query('update rm_scene_log set conditions = $2, actions = $3, result = $4, duration_ms = $5 where id = $1', [
          d.runId,
          JSON.stringify(event.data.conditions),
          JSON.stringify(event.data.actions),
          event.data.result,
          event.data.durationMs,
        ]);
        return;
      default:
        return;
    }
  },
});
