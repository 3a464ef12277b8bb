import type { SceneEvent, SceneRunEvent } from '@iot/contracts';
import { projection } from '../projection.ts';

/** Scenes of each tenant, as the scene list shows them and the scene reactor and scheduler read them; with each one's latest run. */
export const scenesProjection = projection<SceneEvent | SceneRunEvent>({
  name: 'scenes',
  handles: ['SceneCreated', 'SceneUpdated', 'SceneEnabled', 'SceneStopped', 'SceneDeleted', 'SceneRunStarted'],
  tables: ['rm_scenes'],
  schema: `
    create table rm_scenes (
      id text primary key,
      tenant_id text not null,
      name text not null,
      description text,
      status text not null,
      triggers jsonb not null,
      condition_mode text not null,
      conditions jsonb not null,
      actions jsonb not null,
      last_run_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index rm_scenes_tenant on rm_scenes (tenant_id, created_at desc);
    create index rm_scenes_enabled on rm_scenes (status) where status = 'enabled';`,
  async apply(tx, event) {
    const at = event.metadata.occurredAt;
    switch (event.type) {
      case 'SceneCreated':
      case 'SceneUpdated': {
        const d = event.data;
        const status = event.type === 'SceneCreated' ? (event.data.enabled ? 'enabled' : 'stopped') : null;
        await tx.query(
          `insert into rm_scenes (id, tenant_id, name, description, status, triggers, condition_mode, conditions, actions, created_at, updated_at)
           values ($1, $2, $3, $4, coalesce($5, 'stopped'), $6, $7, $8, $9, $10, $10)
           on conflict (id) do update set name = $3, description = $4, triggers = $6, condition_mode = $7, conditions = $8,
             actions = $9, updated_at = $10`,
          [
            d.sceneId,
            event.metadata.tenantId,
            d.name,
            d.description,
            status,
            JSON.stringify(d.triggers),
            d.conditionMode,
            JSON.stringify(d.conditions),
            JSON.stringify(d.actions),
            at,
          ],
        );
        return;
      }
      case 'SceneEnabled':
      case 'SceneStopped':
        await tx.query('update rm_scenes set status = $2, updated_at = $3 where id = $1', [
          event.data.sceneId,
          event.type === 'SceneEnabled' ? 'enabled' : 'stopped',
          at,
        ]);
        return;
      case 'SceneDeleted':
        await tx.query('delete from rm_scenes where id = $1', [event.data.sceneId]);
        return;
      case 'SceneRunStarted':
        await tx.query('update rm_scenes set last_run_at = greatest(last_run_at, $2) where id = $1', [event.data.sceneId, at]);
        return;
      default:
        return;
    }
  },
});
