import type { ReadModel } from '@iot/contracts/http/read-models.ts';
import type { Sql } from '@iot/contracts/ports/sql.ts';
import { comparePositions } from '@iot/projections/runner.ts';
import type { ReadModelWatch } from './route-table.ts';

const POLL_MS = 5;

/**
 * Where each read model stands. `local` reads the checkpoints of a runner in this process (role `all`);
 * without one, the checkpoints table, shared by every process, is read instead.
 */
export function createReadModelWatch(
  source: { local: () => ReadonlyArray<{ name: string; position: string | null }> } | { db: Sql },
): ReadModelWatch {
  const positions = async (): Promise<Map<string, string | null>> => {
    if ('local' in source) return new Map(source.local().map((s) => [s.name, s.position]));
    const rows = await source.db.query<{ name: string; position: string | null }>('select name, position from projection_checkpoints', [], {
      prepare: 'read_model_watch',
    });
    return new Map(rows.rows.map((r) => [r.name, r.position]));
  };
  const reached = (at: Map<string, string | null>, models: readonly ReadModel[], position: string) =>
    models.every((m) => {
      const p = at.get(m);
      return p != null && comparePositions(p, position) >= 0;
    });
  return {
    async positions(models) {
      const at = await positions();
      return models.map((m) => at.get(m) ?? '-').join(',');
    },
    async waitFor(models, position, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (reached(await positions(), models, position)) return true;
        if (Date.now() >= deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    },
  };
}
